/*
 * sz_gpu_kernel_info.cuh -- what the kernels declare about themselves, for the kernel model
 * (ci/kernel-model.py, fed by tests/gpu/gpu_kernel_table.cpp) and for the CPU SIMT harness's
 * occupancy query. Host code only; included after the kernels (sz_gpu_kernels.cuh).
 *
 * Per kernel: its kind (a streaming kernel sizes its grid from the device and moves the frame's
 * bytes; a frame kernel runs one block per frame; a setup kernel zeroes state), the resident
 * blocks per multiprocessor it is built for (its launch bounds, a register budget on CUDA), its
 * static shared memory, the bytes a thread has loaded and not yet used in its hot loop (what
 * Little's law counts), the global bytes it moves per element of uncompressed input, and, when
 * it is allowed to miss a budget of the model, why.
 *
 * ptxas reports the registers and the shared memory of the built kernels; the model checks the
 * shared memory here against it, so the table cannot drift from the code.
 */
#ifndef SZ_GPU_KERNEL_INFO_CUH
#define SZ_GPU_KERNEL_INFO_CUH

#include "sz_gpu_dtype_dec.cuh"
#include "sz_gpu_kernels.cuh"

enum sz_gpu_kernel_kind {
	SZ_GPU_K_STREAM = 0, /* grid from the kernel's own residency; streams the frames' bytes */
	SZ_GPU_K_FRAME = 1,  /* one block per frame (headers, tables, plans) */
	SZ_GPU_K_SETUP = 2   /* zeroes or fills state before a streaming kernel */
};

struct sz_gpu_kernel_info {
	const char *name;   /* as ptxas names it, demangled, with W for the warp width */
	const void *fn;     /* the kernel (the host stub under nvcc and hipcc) */
	unsigned kind;      /* sz_gpu_kernel_kind */
	unsigned blocks;    /* resident blocks per SM it is built for; 0: none asked */
	unsigned smem;      /* static shared memory, bytes */
	unsigned inflight;  /* bytes a thread has loaded and not used yet in its hot loop */
	double read, write; /* global bytes per element of input (streaming kernels) */
	const char *why;    /* why the kernel may miss a budget of the model, or NULL */
};

/* Shared memory of the decode kernels: the frame's view, and the entropy code in ENT (the
 * other kernels' placeholder is never used, so the compilers drop it). */
template <int W, bool ENT> constexpr unsigned sz_gpu_dec_smem_bytes()
{
	return (unsigned)(sizeof(sz_dec_smem<W>) + (ENT ? sizeof(sz_ent_dec_part<ENT>) : 0));
}

#define SZ_KFN_(k) reinterpret_cast<const void *>(k)

/* Why these kernels may miss a budget of the model (doc/BENCHMARKS.md, "Kernel model"). */
#define SZ_WHY_ENC_FI                                                                              \
	"the histogram counters, the sample and the second pass take 80 registers: 3 blocks, one " \
	"segment in flight"
#define SZ_WHY_ENT_DEC                                                                             \
	"a lane's bit stream is serial (one word per step): the independent chunks of 24 warps, "  \
	"not bytes in flight, hide the latency; issue-bound"
#define SZ_WHY_DEC_HEADERS                                                                         \
	"a warp per frame header (its checks' 64-bit fields): one short pass over the headers, "   \
	"latency-bound by its loads"
#define SZ_WHY_ENT_COUNT "replays the decoder's refills per element: issue-bound, not load-bound"
#define SZ_WHY_ENT_HIST "within 10 % of the need; one pass of a few per frame"
#define SZ_WHY_DT_DEC                                                                              \
	"frames of every dtype, not tuned yet: a group per chunk, rest fields by byte loads, a "   \
	"lane's entropy bit stream serial; 3 blocks; issue-bound"

/* The kernels of the frame codec at warp width W (the page-stream kernels are not here). */
template <int W> const sz_gpu_kernel_info *sz_gpu_kernel_table(size_t *n)
{
	enum { CS = SZ_O_CODES | SZ_O_SM, CSI = SZ_O_CODES | SZ_O_SM | SZ_O_HIST };
	static const sz_gpu_kernel_info t[] = {
	    {"sz_k_enc_init<W>", SZ_KFN_(sz_k_enc_init<W>), SZ_GPU_K_SETUP, 0, 0, 0, 0, 0, nullptr},
	    {"sz_k_encode<W, false>", SZ_KFN_((sz_k_encode<W, false>)), SZ_GPU_K_STREAM,
	     SZ_GPU_ENC_BLOCKS(0), sizeof(sz_enc_smem<W>), 16 * SZ_ENC_SEGS(CS), 2.0, 1.5, nullptr},
	    {"sz_k_encode<W, true>", SZ_KFN_((sz_k_encode<W, true>)), SZ_GPU_K_STREAM,
	     SZ_GPU_ENC_BLOCKS(1), sizeof(sz_enc_smem<W>), 16 * SZ_ENC_SEGS(CSI), 2.15, 1.51,
	     SZ_WHY_ENC_FI},
	    {"sz_k_encode_pages<W, false>", SZ_KFN_((sz_k_encode_pages<W, false>)), SZ_GPU_K_STREAM,
	     SZ_GPU_ENC_BLOCKS(0), sizeof(sz_enc_smem<W>), 16 * SZ_ENC_SEGS(CS), 2.0, 1.5, nullptr},
	    {"sz_k_encode_pages<W, true>", SZ_KFN_((sz_k_encode_pages<W, true>)), SZ_GPU_K_STREAM,
	     SZ_GPU_ENC_BLOCKS(1), sizeof(sz_enc_smem<W>), 16 * SZ_ENC_SEGS(CSI), 4.0, 1.5,
	     SZ_WHY_ENC_FI},
	    {"sz_k_dec_init<W>", SZ_KFN_(sz_k_dec_init<W>), SZ_GPU_K_FRAME, 0,
	     sizeof(sz_dec_smem<W>), 0, 0, 0, nullptr},
	    {"sz_k_dec_headers<W>", SZ_KFN_(sz_k_dec_headers<W>), SZ_GPU_K_FRAME, 0,
	     (unsigned)((sizeof(sz_dec_frame) + SPLITZIP_FRAME_HEADER_SIZE) * (SZ_GPU_THREADS / W)),
	     0, 0, 0, SZ_WHY_DEC_HEADERS},
	    {"sz_k_decode<W, false>", SZ_KFN_((sz_k_decode<W, false>)), SZ_GPU_K_STREAM,
	     SZ_DEC_BLOCKS(0), sz_gpu_dec_smem_bytes<W, false>(), SZ_DEC_LOAD_BYTES, 1.5, 2.0,
	     nullptr},
	    {"sz_k_decode<W, true>", SZ_KFN_((sz_k_decode<W, true>)), SZ_GPU_K_STREAM,
	     SZ_DEC_BLOCKS(1), sz_gpu_dec_smem_bytes<W, true>(), SZ_ENT_DEC_LOAD_BYTES, 1.35, 2.0,
	     SZ_WHY_ENT_DEC},
	    {"sz_k_decode_pages<W, false>", SZ_KFN_((sz_k_decode_pages<W, false>)), SZ_GPU_K_STREAM,
	     SZ_DEC_BLOCKS(0), sz_gpu_dec_smem_bytes<W, false>(), SZ_DEC_LOAD_BYTES, 1.5, 2.0,
	     nullptr},
	    {"sz_k_decode_pages<W, true>", SZ_KFN_((sz_k_decode_pages<W, true>)), SZ_GPU_K_STREAM,
	     SZ_DEC_BLOCKS(1), sz_gpu_dec_smem_bytes<W, true>(), SZ_ENT_DEC_LOAD_BYTES, 1.35, 2.0,
	     SZ_WHY_ENT_DEC},
	    {"sz_k_dt_dec_init<W>", SZ_KFN_(sz_k_dt_dec_init<W>), SZ_GPU_K_FRAME, 0,
	     sizeof(sz_dt_smem<W>), 0, 0, 0, nullptr},
	    {"sz_k_dt_decode<W, false>", SZ_KFN_((sz_k_dt_decode<W, false>)), SZ_GPU_K_STREAM,
	     SZ_DT_DEC_BLOCKS, (unsigned)sizeof(sz_dt_smem<W>), 4, 1.5, 2.0, SZ_WHY_DT_DEC},
	    {"sz_k_dt_decode<W, true>", SZ_KFN_((sz_k_dt_decode<W, true>)), SZ_GPU_K_STREAM,
	     SZ_DT_DEC_BLOCKS, (unsigned)(sizeof(sz_dt_smem<W>) + sizeof(sz_ent_dec_smem)), 4, 1.35,
	     2.0, SZ_WHY_DT_DEC},
	    {"sz_k_ent_init<W>", SZ_KFN_(sz_k_ent_init<W>), SZ_GPU_K_FRAME, 0,
	     sizeof(sz_ent_enc_smem), 0, 0, 0, nullptr},
	    {"sz_k_ent_hist<W>", SZ_KFN_(sz_k_ent_hist<W>), SZ_GPU_K_STREAM, SZ_ENT_BLOCKS, 257 * 4,
	     16, 2.0, 0.0, SZ_WHY_ENT_HIST},
	    {"sz_k_ent_table<W>", SZ_KFN_(sz_k_ent_table<W>), SZ_GPU_K_FRAME, 0,
	     sizeof(sz_ent_pm_smem), 0, 0, 0, nullptr},
	    {"sz_k_ent_count<W>", SZ_KFN_(sz_k_ent_count<W>), SZ_GPU_K_STREAM, SZ_ENT_BLOCKS,
	     sizeof(sz_ent_enc_smem), 16, 2.0, 0.0, SZ_WHY_ENT_COUNT},
	    {"sz_k_ent_plan<W>", SZ_KFN_(sz_k_ent_plan<W>), SZ_GPU_K_FRAME, 0,
	     (SZ_GPU_THREADS + 1) * 8 + SPLITZIP_FRAME_HEADER_SIZE + 8, 0, 0, 0, nullptr},
	    {"sz_k_ent_encode<W>", SZ_KFN_(sz_k_ent_encode<W>), SZ_GPU_K_STREAM, SZ_ENT_BLOCKS,
	     sizeof(sz_ent_enc_smem), 16, 2.0, 1.33, nullptr},
	};
	*n = sizeof t / sizeof t[0];
	return t;
}

#undef SZ_KFN_

/* The entry of kernel fn at width W, or NULL. */
template <int W> const sz_gpu_kernel_info *sz_gpu_kernel_info_of(const void *fn)
{
	size_t n = 0;
	const sz_gpu_kernel_info *t = sz_gpu_kernel_table<W>(&n);
	for (size_t i = 0; i < n; i++)
		if (t[i].fn == fn)
			return &t[i];
	return nullptr;
}

/* The limits of one multiprocessor that occupancy depends on (H100/H200, sm_90, by default). */
struct sz_gpu_sm_limits {
	unsigned regs = 65536;         /* 32-bit registers */
	unsigned smem = 233472;        /* shared memory, bytes (228 KiB) */
	unsigned smem_reserved = 1024; /* per block, kept by the system */
	unsigned threads = 2048;
	unsigned blocks = 32;
};

/*
 * Resident blocks of 'threads' threads per multiprocessor for a kernel of this entry, from what
 * it declares: the blocks its launch bounds ask for (the compiler keeps its registers within
 * them; CUDA's occupancy query can only give as many or more), else the thread limit; then the
 * shared memory and the thread and block limits. The SIMT harness plays a device of this
 * occupancy.
 */
static inline unsigned sz_gpu_model_blocks(const sz_gpu_kernel_info &k, unsigned threads,
                                           const sz_gpu_sm_limits &sm = sz_gpu_sm_limits())
{
	unsigned b = sm.threads / threads;
	if (k.blocks && k.blocks < b)
		b = k.blocks;
	const unsigned by_smem = sm.smem / (k.smem + sm.smem_reserved);
	if (by_smem < b)
		b = by_smem;
	return b < sm.blocks ? b : sm.blocks;
}

#endif /* SZ_GPU_KERNEL_INFO_CUH */
