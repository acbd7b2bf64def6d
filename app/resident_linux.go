package app

import (
	"debug/elf"
	"runtime"
	"syscall"
)

// dropStartupPages lets go of the pages of the program's own code and
// read-only data that starting up brought in. elicitray is one binary with
// the desktop app in it; a wrapper, which runs all day beside every
// wrapped server, uses a small part of it, but starting a Go program (its
// package initialisers, the runtime's tables) touches most of its 24 MB of
// code and read-only data, and the kernel maps whole runs of them at each
// touch: 26 MB resident for a relay that needs a few (a collection, which
// reads the runtime's tables for every frame of every stack, brings some
// back each time). madvise(DONTNEED)
// unmaps them from this process (they stay in the page cache, shared with
// every other elicitray), and what the relay runs comes back on its first
// use.
//
// Only segments that are never written are touched: the loadable ones
// without write permission, minus the range the dynamic loader relocates
// before making it read-only (PT_GNU_RELRO), whose pages differ from the
// file. Position-independent builds are left alone: their load address
// would have to be found first.
func dropStartupPages() {
	ranges := readOnlyRanges()
	if len(ranges) == 0 {
		return
	}
	drop := func() {
		for _, r := range ranges {
			dontNeed(r[0], r[1])
		}
	}
	drop()
	drop() // a range mapped 2 MB at a time is split by the first pass
	// Each collection walks every goroutine's stack and reads the
	// runtime's tables for each frame, scattered over 8 MB: they come
	// back, 64 kB around each read. They go again after each collection,
	// told by a finalizer (an idle wrapper collects every two minutes).
	var arm func()
	arm = func() {
		runtime.SetFinalizer(new(gcSentinel), func(*gcSentinel) {
			drop()
			drop()
			arm()
		})
	}
	arm()
}

// gcSentinel is the object whose finalizer runs after each collection.
type gcSentinel struct{ _ [16]byte }

// readOnlyRanges returns the page-aligned address ranges of the program's
// own segments that are never written, or none when they cannot be found.
func readOnlyRanges() [][2]uint64 {
	f, err := elf.Open("/proc/self/exe")
	if err != nil {
		return nil
	}
	defer f.Close()
	if f.Type != elf.ET_EXEC {
		return nil
	}
	var ranges [][2]uint64
	add := func(start, end uint64) {
		if end > start {
			ranges = append(ranges, [2]uint64{start, end})
		}
	}
	page := uint64(syscall.Getpagesize())
	var relroStart, relroEnd uint64
	for _, p := range f.Progs {
		if p.Type == elf.PT_GNU_RELRO {
			relroStart, relroEnd = p.Vaddr&^(page-1), (p.Vaddr+p.Memsz+page-1)&^(page-1)
		}
	}
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD || p.Flags&elf.PF_W != 0 {
			continue
		}
		start, end := (p.Vaddr+page-1)&^(page-1), (p.Vaddr+p.Memsz)&^(page-1)
		if relroEnd > relroStart && start < relroEnd && relroStart < end {
			// Keep the relocated range: advise only around it.
			add(start, min(end, relroStart))
			start = max(start, relroEnd)
		}
		add(start, end)
	}
	return ranges
}

// dontNeed unmaps [start, end) from the process. NOHUGEPAGE first: on
// kernels that keep files in large folios (6.x), a touch would otherwise
// map 2 MB of the page cache at once (FilePmdMapped), and a few touches
// bring most of it back.
func dontNeed(start, end uint64) {
	if end > start {
		_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, uintptr(start), uintptr(end-start), syscall.MADV_NOHUGEPAGE)
		_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, uintptr(start), uintptr(end-start), syscall.MADV_DONTNEED)
	}
}
