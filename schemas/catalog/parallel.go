package catalog

import (
	"runtime"
	"sync"
)

// parallel calls fn(0) … fn(n-1) on every CPU and waits for them all. Callers write results into
// slices by index, so the order of the output never depends on scheduling.
func parallel(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// ReadWorkers bounds the bundles whose manifests ReadManifests reads at once (a bundle image
// pull each, when the catalog carries only metadata).
const ReadWorkers = 8

// ReadManifests reads the manifests of bundles concurrently; each bundle keeps its result (or
// error) for Bundle.Manifests.
func ReadManifests(bundles []*Bundle) {
	sem := make(chan struct{}, ReadWorkers)
	var wg sync.WaitGroup
	for _, b := range bundles {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			_, _ = b.Manifests()
		}()
	}
	wg.Wait()
}
