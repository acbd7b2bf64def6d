package bridge

import (
	"context"
	"sync"
)

// Requests reach the Approver in the order they reached the relay
// (PROTOCOL.md §10: prompts come up in the order they arrived). Each is
// decided on a goroutine of its own, so without a turn the one the
// scheduler runs first is shown first: three pushes came up 1, 3, 2. A
// turn is taken where the request is read, in order; its Approve waits
// until the turn before it has been handed on, which an InOrder Approver
// says with Submitted as soon as its request is with the hub, long before
// anyone decides. Other Approvers hand on a request only when they return
// it decided, so the relay keeps no order for them.

// InOrder is an Approver that calls Submitted(ctx) once it has handed
// ctx's request on (the hub has it), before it waits for the decision.
type InOrder interface {
	Approver
	SubmitsInOrder()
}

// Submitted says that ctx's request has been handed on, and the next
// request may follow. It does nothing for a ctx without a turn.
func Submitted(ctx context.Context) {
	if t, ok := ctx.Value(turnKey{}).(*turn); ok {
		t.handedOn()
	}
}

type turnKey struct{}

// turn is a request's place in the line to the Approver.
type turn struct {
	prev <-chan struct{} // closed when the turn before is handed on
	done chan struct{}
	once sync.Once
}

func (t *turn) handedOn() { t.once.Do(func() { close(t.done) }) }

// arrivals hands out the turns, in the order they are taken.
type arrivals struct {
	mu   sync.Mutex
	last chan struct{}
}

// take returns ctx with the next turn. Whoever takes one must see it
// handed on (approve does; a path that may not reach it calls Submitted)
// or every later request waits.
func (a *arrivals) take(ctx context.Context) context.Context {
	a.mu.Lock()
	defer a.mu.Unlock()
	t := &turn{prev: a.last, done: make(chan struct{})}
	a.last = t.done
	return context.WithValue(ctx, turnKey{}, t)
}

// approve asks the Approver, in ctx's turn when the Approver keeps the
// order, and hands the turn on when it returns whatever happened.
func (d *decider) approve(ctx context.Context, req *Request) (*Result, error) {
	defer d.deciding.Start()()
	defer Submitted(ctx)
	if _, ok := d.opts.Approver.(InOrder); ok {
		if t, ok := ctx.Value(turnKey{}).(*turn); ok && t.prev != nil {
			select {
			case <-t.prev:
			case <-ctx.Done():
			}
		}
	}
	return d.opts.Approver.Approve(ctx, req)
}
