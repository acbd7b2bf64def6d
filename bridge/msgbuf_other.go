//go:build !linux

package bridge

// mapMessage maps nothing here: messages stay on the heap (msgbuf.go).
func mapMessage(int) ([]byte, bool) { return nil, false }

func unmapMessage([]byte) {}
