package platform

// Windows job-object limits (winnt.h) that decide whether a child may leave
// its parent's job.
const (
	jobLimitBreakawayOK       = 0x800
	jobLimitSilentBreakawayOK = 0x1000
	createBreakawayFromJob    = 0x01000000
)

// breakawayFlags is the creation flag that takes the detached hub out of
// the job its wrapper runs in, from whether it runs in one and that job's
// limit flags: CREATE_BREAKAWAY_FROM_JOB where the job allows breaking
// away; nothing where children leave it anyway (silent breakaway) or where
// there is no job; and nothing where the job forbids it, as CreateProcess
// would refuse the flag: the hub then lives as long as the host's job.
func breakawayFlags(inJob bool, limitFlags uint32) uint32 {
	if !inJob || limitFlags&jobLimitSilentBreakawayOK != 0 || limitFlags&jobLimitBreakawayOK == 0 {
		return 0
	}
	return createBreakawayFromJob
}
