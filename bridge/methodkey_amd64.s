#include "textflag.h"

// func methodCandidate(b []byte) int
//
// SSE2, which every amd64 has. Each step compares two 16-byte loads, at
// offsets 0 and 1 from the step's start, with '"' and with 'm' or '\\' (a
// key can start with an escaped letter, "\u006dethod"): bit k of the masks
// ANDed is set where `"method"` could start at position k. (Two more
// loads, for 'd' and the closing quote, halved the speed and saved little:
// `"m` and `"\` are rare in JSON.) Steps run while the key would fit.
TEXT ·methodCandidate(SB), NOSPLIT, $0-32
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), BX
	MOVQ $-1, AX
	SUBQ $7, BX
	JLE  done
	SHRQ $4, BX
	JZ   done
	SHLQ $4, BX                   // BX: candidateEnd(len(b))
	MOVQ $0x2222222222222222, DX  // '"' in every byte
	MOVQ DX, X0
	PUNPCKLQDQ X0, X0
	MOVQ $0x6d6d6d6d6d6d6d6d, DX  // 'm'
	MOVQ DX, X1
	PUNPCKLQDQ X1, X1
	MOVQ $0x5c5c5c5c5c5c5c5c, DX  // '\\'
	MOVQ DX, X2
	PUNPCKLQDQ X2, X2
	XORQ CX, CX

loop:
	MOVOU (SI)(CX*1), X3
	MOVOU 1(SI)(CX*1), X4
	MOVOU X4, X5
	PCMPEQB X0, X3
	PCMPEQB X1, X4
	PCMPEQB X2, X5
	POR X5, X4
	PAND X4, X3
	PMOVMSKB X3, DX
	TESTL DX, DX
	JNZ found
	ADDQ $16, CX
	CMPQ CX, BX
	JB loop
	JMP done

found:
	BSFL DX, DX
	ADDQ DX, CX
	MOVQ CX, AX

done:
	MOVQ AX, ret+24(FP)
	RET
