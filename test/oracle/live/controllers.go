package live

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// controllers are OLM's two controller processes.
type controllers struct {
	procs []*process
}

// process is one running controller.
type process struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	mu   sync.Mutex
	err  error // why it exited, once it has
}

// controllerArgs are the arguments of each controller, as OLM's own deployment gives them
// (deploy/chart/templates/0000_50_olm_07-olm-operator.deployment.yaml and
// 0000_50_olm_08-catalog-operator.deployment.yaml), without the OpenShift ClusterOperator
// status and the images of pods that cannot run here.
func (c *Cluster) controllerArgs() map[string][]string {
	ns := c.opts.CatalogNamespace
	return map[string][]string{
		"olm":     {"--namespace", ns, "--writeStatusName", ""},
		"catalog": {"--namespace", ns, "--writeStatusName", ""},
	}
}

// StartOLM starts OLM's olm-operator and catalog-operator, each a process of its own with the
// cluster's kubeconfig, logging to <Dir>/olm.log and <Dir>/catalog.log; it does nothing on a
// cluster without OLM v0 (Options.Binaries "").
func (c *Cluster) StartOLM() error {
	if c.opts.Binaries == "" {
		return nil
	}
	if c.olm != nil {
		return errors.New("OLM's controllers are already running")
	}
	c.olm = &controllers{}
	for _, name := range []string{"catalog", "olm"} {
		argv := append([]string{filepath.Join(c.opts.Binaries, name)}, c.controllerArgs()[name]...)
		p, err := c.startProcess(name, argv, nil)
		if err != nil {
			return errors.Join(err, c.StopOLM())
		}
		c.olm.procs = append(c.olm.procs, p)
	}
	return nil
}

// startProcess starts one controller, named name, running argv with the cluster's kubeconfig
// and env added to the test's environment, logging to <Dir>/<name>.log.
func (c *Cluster) startProcess(name string, argv, env []string) (*process, error) {
	p := &process{name: name, log: filepath.Join(c.opts.Dir, name+".log"), done: make(chan struct{})}
	log, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening %s's log: %w", name, err)
	}
	fmt.Fprintf(log, "\n==== %s: starting %s %v\n", time.Now().Format(time.RFC3339Nano), name, argv)
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Env = append(append(os.Environ(), "KUBECONFIG="+c.Kubeconfig), env...)
	p.cmd.Stdout, p.cmd.Stderr = log, log
	// The controllers die with the test, whatever ends it.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	go func() {
		err := p.cmd.Wait()
		log.Close()
		p.mu.Lock()
		p.err = fmt.Errorf("%s exited: %v", name, err)
		p.mu.Unlock()
		close(p.done)
	}()
	return p, nil
}

// StopOLM stops OLM's controllers: SIGTERM, then SIGKILL after ten seconds.
func (c *Cluster) StopOLM() error {
	if c.olm == nil {
		return nil
	}
	var errs []error
	for _, p := range c.olm.procs {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, p := range c.olm.procs {
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			if err := p.cmd.Process.Kill(); err != nil {
				errs = append(errs, fmt.Errorf("killing OLM's %s: %w", p.name, err))
			}
			<-p.done
		}
	}
	c.olm = nil
	return errors.Join(errs...)
}

// ErrStopped is returned when OLM's controllers are not running.
var ErrStopped = errors.New("OLM's controllers are stopped")

// KillOLM kills OLM's controllers at once (SIGKILL), as a crash or an evicted pod would.
func (c *Cluster) KillOLM() error {
	if c.olm == nil {
		return nil
	}
	var errs []error
	for _, p := range c.olm.procs {
		if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
			errs = append(errs, fmt.Errorf("killing OLM's %s: %w", p.name, err))
		}
	}
	for _, p := range c.olm.procs {
		<-p.done
	}
	c.olm = nil
	return errors.Join(errs...)
}

// OLMRunning reports whether OLM's controllers are running; the error says which one exited
// and how, with the end of its log.
func (c *Cluster) OLMRunning() error {
	if c.olm == nil {
		return ErrStopped
	}
	for _, p := range c.olm.procs {
		select {
		case <-p.done:
			p.mu.Lock()
			err := p.err
			p.mu.Unlock()
			return fmt.Errorf("%w; the end of %s:\n%s", err, p.log, tail(p.log, 20))
		default:
		}
	}
	return nil
}

// tail returns the last n lines of a file.
func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
