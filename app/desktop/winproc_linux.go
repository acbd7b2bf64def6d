package desktop

import "syscall"

// windowProcAttr makes the window process die with the hub: the kernel
// kills it when the hub ends, however it ends (a kill -9 included), besides
// the end of its socket, which it reads as "stop".
func windowProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
