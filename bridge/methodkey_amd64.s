#include "textflag.h"

// func methodCandidate(b []byte) (i int, esc bool)
//
// SSE2, which every amd64 has. Each step compares two 16-byte loads, at
// offsets 0 and 1 from the step's start, with '"' and with 'm' in either
// case (the second load ORed with 0x20 first): bit k of the two masks
// ANDed is set where `"method"`, in any case, could start at position k.
// (Two more loads, for 'd' and the closing quote, halved the speed and
// saved little: `"m` is rare in JSON.) Steps run while the key would fit,
// two at a time while two fit, with one test of both masks ORed: the OR
// for the case costs a step what the unrolled loop's bookkeeping saves.
// The first load of each step is also compared with '\', and esc says
// whether a step met a backslash: without one, no escape can spell the
// key. With AVX2 (useAVX2), the steps that run two at a time run as
// 32-byte steps instead, two of them at a time while two fit: the same
// compares, on twice the bytes an instruction.
TEXT ·methodCandidate(SB), NOSPLIT, $0-33
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), BX
	MOVQ $-1, AX
	PXOR X6, X6                   // the backslashes met
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
	MOVQ $0x2020202020202020, DX  // 'M'|0x20 == 'm'|0x20 == 'm'
	MOVQ DX, X7
	PUNPCKLQDQ X7, X7
	XORQ CX, CX
	MOVQ BX, R8
	SUBQ $16, R8                  // R8: pairs of steps run while CX < R8
	CMPQ CX, R8
	JGE  single
	CMPB ·useAVX2(SB), $1
	JEQ  wide

pair:
	MOVOU (SI)(CX*1), X3
	MOVOU 1(SI)(CX*1), X4
	MOVOU 16(SI)(CX*1), X8
	MOVOU 17(SI)(CX*1), X9
	MOVOU X3, X5
	PCMPEQB X2, X5
	POR X5, X6
	MOVOU X8, X10
	PCMPEQB X2, X10
	POR X10, X6
	POR X7, X4
	POR X7, X9
	PCMPEQB X0, X3
	PCMPEQB X1, X4
	PAND X4, X3
	PCMPEQB X0, X8
	PCMPEQB X1, X9
	PAND X9, X8
	MOVOU X3, X11
	POR X8, X11
	PMOVMSKB X11, DX
	TESTL DX, DX
	JNZ foundpair
	ADDQ $32, CX
	CMPQ CX, R8
	JLT pair

single:
	// At most one step is left: CX+16 >= BX.
	CMPQ CX, BX
	JAE done
	MOVOU (SI)(CX*1), X3
	MOVOU 1(SI)(CX*1), X4
	MOVOU X3, X5
	PCMPEQB X2, X5
	POR X5, X6
	POR X7, X4
	PCMPEQB X0, X3
	PCMPEQB X1, X4
	PAND X4, X3
	PMOVMSKB X3, DX
	TESTL DX, DX
	JZ done
	JMP found

wide:
	// 32-byte steps: Y0 '"', Y1 'm', Y2 '\\', Y7 0x20; Y6 the
	// backslashes met. R9: two steps run while CX < R9.
	VPBROADCASTB X0, Y0
	VPBROADCASTB X1, Y1
	VPBROADCASTB X2, Y2
	VPBROADCASTB X7, Y7
	VPXOR Y6, Y6, Y6
	MOVQ BX, R9
	SUBQ $48, R9
	CMPQ CX, R9
	JGE  wide1

wide2:
	VMOVDQU (SI)(CX*1), Y3
	VMOVDQU 1(SI)(CX*1), Y4
	VMOVDQU 32(SI)(CX*1), Y8
	VMOVDQU 33(SI)(CX*1), Y9
	VPCMPEQB Y2, Y3, Y5
	VPCMPEQB Y2, Y8, Y10
	VPOR Y5, Y6, Y6
	VPOR Y10, Y6, Y6
	VPOR Y7, Y4, Y4
	VPOR Y7, Y9, Y9
	VPCMPEQB Y0, Y3, Y3
	VPCMPEQB Y1, Y4, Y4
	VPAND Y4, Y3, Y3
	VPCMPEQB Y0, Y8, Y8
	VPCMPEQB Y1, Y9, Y9
	VPAND Y9, Y8, Y8
	VPOR Y3, Y8, Y11
	VPTEST Y11, Y11
	JNZ widefound2
	ADDQ $64, CX
	CMPQ CX, R9
	JLT wide2

wide1:
	// At most one 32-byte step is left, then at most one 16-byte one.
	CMPQ CX, R8
	JGE  widetail
	VMOVDQU (SI)(CX*1), Y3
	VMOVDQU 1(SI)(CX*1), Y4
	VPCMPEQB Y2, Y3, Y5
	VPOR Y5, Y6, Y6
	VPOR Y7, Y4, Y4
	VPCMPEQB Y0, Y3, Y3
	VPCMPEQB Y1, Y4, Y4
	VPAND Y4, Y3, Y3
	VPMOVMSKB Y3, DX
	TESTL DX, DX
	JNZ widefound
	ADDQ $32, CX

widetail:
	// The backslashes met go back to X6, for single and done; with no
	// candidate found (AX -1), single looks at what is left.
	VEXTRACTI128 $1, Y6, X5
	VPOR X5, X6, X6
	VZEROUPPER
	CMPQ AX, $-1
	JEQ single
	JMP done

widefound2:
	// The first candidate of the two steps: the first's bits low.
	VPMOVMSKB Y3, DX
	VPMOVMSKB Y8, R10
	SHLQ $32, R10
	ORQ R10, DX
	BSFQ DX, DX
	ADDQ DX, CX
	MOVQ CX, AX
	JMP widetail

widefound:
	BSFL DX, DX
	ADDQ DX, CX
	MOVQ CX, AX
	JMP widetail

found:
	BSFL DX, DX
	ADDQ DX, CX
	MOVQ CX, AX
	JMP done

foundpair:
	// The first candidate of the two steps: the first's bits low.
	PMOVMSKB X3, DX
	PMOVMSKB X8, R9
	SHLQ $16, R9
	ORQ R9, DX
	BSFQ DX, DX
	ADDQ DX, CX
	MOVQ CX, AX

done:
	MOVQ AX, i+24(FP)
	PMOVMSKB X6, DX
	TESTL DX, DX
	SETNE esc+32(FP)
	RET

// func escapedLetter(b []byte) int
//
// The same search for `\u00` followed by '4' to '7', the start of a \u
// escape of a character from U+0040 to U+007F, among them every letter of
// "method" in either case: five loads a step, at offsets 0 to 4. Steps run while the
// escape's five bytes would fit.
TEXT ·escapedLetter(SB), NOSPLIT, $0-32
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), BX
	MOVQ $-1, AX
	SUBQ $4, BX
	JLE  edone
	SHRQ $4, BX
	JZ   edone
	SHLQ $4, BX                   // BX: escapedLetterEnd(len(b))
	MOVQ $0x5c5c5c5c5c5c5c5c, DX  // '\\'
	MOVQ DX, X9
	PUNPCKLQDQ X9, X9
	MOVQ $0x7575757575757575, DX  // 'u'
	MOVQ DX, X10
	PUNPCKLQDQ X10, X10
	MOVQ $0x3030303030303030, DX  // '0'
	MOVQ DX, X11
	PUNPCKLQDQ X11, X11
	MOVQ $0x0303030303030303, DX  // '4'|3 to '7'|3 == '7'
	MOVQ DX, X12
	PUNPCKLQDQ X12, X12
	MOVQ $0x3737373737373737, DX  // '7'
	MOVQ DX, X13
	PUNPCKLQDQ X13, X13
	XORQ CX, CX

eloop:
	MOVOU (SI)(CX*1), X3
	MOVOU 1(SI)(CX*1), X4
	MOVOU 2(SI)(CX*1), X5
	MOVOU 3(SI)(CX*1), X7
	MOVOU 4(SI)(CX*1), X8
	PCMPEQB X9, X3
	PCMPEQB X10, X4
	PCMPEQB X11, X5
	PCMPEQB X11, X7
	POR X12, X8
	PCMPEQB X13, X8
	PAND X4, X3
	PAND X5, X3
	PAND X7, X3
	PAND X8, X3
	PMOVMSKB X3, DX
	TESTL DX, DX
	JNZ efound
	ADDQ $16, CX
	CMPQ CX, BX
	JB eloop
	JMP edone

efound:
	BSFL DX, DX
	ADDQ DX, CX
	MOVQ CX, AX

edone:
	MOVQ AX, ret+24(FP)
	RET
