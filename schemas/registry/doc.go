// Package registry turns image references into what olm-render loads: an index image into its
// file-based catalog, a bundle image into its manifests. It pulls with containers/image (the
// library opm, operator-controller and oc-mirror use), so registries behave as users configure
// them: credentials from the Podman and Docker auth files and credential helpers, mirrors and
// plain-HTTP registries from registries.conf (CONTAINERS_REGISTRIES_CONF), plus the digest
// mirrors of ImageDigestMirrorSet and ImageContentSourcePolicy objects given as inputs.
//
// # Content and trust
//
// Every manifest, config and layer is stored in an imagecache.Cache by digest and verified when
// written and when read; a warm pull makes no network call. A reference by tag is resolved once
// per run (or never: Options.Pins and Options.Offline), and everything after that is fetched by
// digest. Signatures (policy.json) are not checked: the digests pinned in the lock are the trust
// anchor (docs/offline.md).
//
// # Bounds
//
// Manifests, configs, compressed layers, the bytes decompressed from an image's layers and the
// files kept from them all have limits (Limits); a layer that decompresses past its limit fails
// without buffering it. Only the files a caller keeps (the catalog directory of an index, the
// manifests and metadata of a bundle) are held in memory.
package registry
