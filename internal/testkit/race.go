package testkit

import "sync"

// Race runs fn(0) … fn(n-1) in n goroutines that wait at a barrier until
// all of them have started, and returns when all have finished: the widest
// window for the races a test means to provoke.
func Race(n int, fn func(i int)) {
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			fn(i)
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
}
