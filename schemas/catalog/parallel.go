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
