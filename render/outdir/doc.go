// Package outdir writes an output directory confined and atomically, for a process that runs on
// untrusted input (a repository whose output directory, and everything around it, may hold
// symbolic links, special files or names chosen by an attacker).
//
// [Prepare] builds the complete new content in a temporary directory beside the target, and
// [Pending.Commit] puts it in place. The guarantees:
//
//   - Confined. Every file name is checked before anything is written: it must be a short,
//     relative, slash-separated path of lower-case segments that stays inside the directory (see
//     [Prepare] for the exact rules). All writes go through an [os.Root] on the temporary
//     directory, files are created exclusively (O_EXCL), and no symbolic link is ever followed:
//     not in the target, not in the files found there, not in the temporary directory.
//   - Atomic. On Linux the new directory and the old one are exchanged in one rename
//     (renameat2 with RENAME_EXCHANGE), so the directory never goes missing; elsewhere the old
//     one is moved aside, the new one moved in, and the old one restored if that fails. A file
//     outside the directory added with [Pending.Also] (a lock file, say) is renamed into place
//     right after the exchange, and the exchange is undone if that rename fails. Files and
//     directories are synced before the exchange, so a crash leaves the old or the new content.
//   - Nothing changes on error. Any failure before the exchange removes the temporary state and
//     leaves the directory, its parent and the added file as they were.
//   - User files are kept. The directory records the files it wrote in [IndexFile]. Any other
//     file found there on the next run is the user's: it is carried over unchanged (regular files
//     copied with their mode, symbolic links recreated with the same link text and never read
//     through, directories recreated), and a user file where a new file would go is an error.
//     Files an earlier run wrote and this one does not are removed.
//   - Unchanged content is left alone. When the directory already holds exactly what would be
//     written (the same IndexFile, every file a regular file with the same bytes and mode, its
//     directories plain directories, and only user files besides), [Prepare] writes nothing and
//     [Pending.Commit] leaves the directory as it is, modification times too; only the
//     [Pending.Also] file lands. A fleet or CI run that changes nothing then costs reads, not
//     writes.
//   - Serialized. A process holds an exclusive lock (flock) on .<base>.olm-render.lock in the
//     parent from [Prepare] to [Pending.Commit] or [Pending.Discard], so two writers of one
//     directory take turns, and the leftovers of an interrupted run (.<base>.olm-render-*) are
//     removed by the next one.
//
// The lock is not taken on systems without flock (Windows, Plan 9, AIX); there, concurrent writers
// of the same directory are not serialized.
package outdir
