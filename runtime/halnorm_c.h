/* halnorm: normalization kernels, C ABI.
 *
 * Shapes and strides are given like PyTorch/NumPy: outermost first, strides
 * in elements. Every function returns 0 on success; otherwise an error code
 * (halnorm_status) and halnorm_last_error() names the argument at fault. On
 * an argument error no output is written (a kernel that runs out of memory
 * partway may leave finished tiles written: README, Guarantees). Nothing
 * prints or aborts inside a call. */
#ifndef HALNORM_RUNTIME_HALNORM_C_H_
#define HALNORM_RUNTIME_HALNORM_C_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
/* In C++ every int32 is a value of these enums, so the library may read and
 * reject whatever int a C caller stored (an out-of-range value of a plain
 * C++ enum is undefined behavior). Same size and ABI as C's int enums. */
#define HALNORM_ENUM_BASE : int32_t
#else
#define HALNORM_ENUM_BASE
#endif

typedef enum HALNORM_ENUM_BASE { HALNORM_F32 = 0, HALNORM_F16 = 1, HALNORM_BF16 = 2 } halnorm_dtype;
typedef enum HALNORM_ENUM_BASE { HALNORM_CPU = 0, HALNORM_CUDA = 1 } halnorm_device;

typedef struct {
  void* data;
  halnorm_dtype dtype;
  halnorm_device device;
  int32_t rank; /* 1..4 */
  int64_t shape[4];
  int64_t strides[4]; /* elements */
} halnorm_tensor;

typedef struct {
  float eps;                      /* inside the square root; default 1e-5 */
  int32_t normalized_rank;        /* trailing dims normalized; default 1 */
  float weight_offset;            /* y uses (weight + offset); 1.0 = Gemma-style */
  const halnorm_tensor* residual; /* optional fused add: h = alpha*x + residual */
  float residual_alpha;           /* default 1.0 (DeepNorm uses alpha > 1) */
  halnorm_tensor* residual_out;   /* optional: receives h */
  void* cuda_stream;              /* optional, for HALNORM_CUDA tensors */
} halnorm_norm_options;

typedef enum HALNORM_ENUM_BASE {
  HALNORM_AXES_C = 0,   /* per pixel over C (ConvNeXt, SAM, timm) */
  HALNORM_AXES_CHW = 1, /* over C,H,W per sample (GroupNorm(1)) */
  HALNORM_AXES_HW = 2   /* over H,W per channel */
} halnorm_axes;

/* Return codes (added to the contract; 0 is success). */
typedef enum HALNORM_ENUM_BASE {
  HALNORM_OK = 0,
  HALNORM_ERROR_INVALID_ARGUMENT = 1, /* bad tensor, shape, dtype or option */
  HALNORM_ERROR_UNIMPLEMENTED = 2,    /* op or option not built yet */
  HALNORM_ERROR_UNSUPPORTED = 3,      /* device/dtype this build or CPU lacks */
  HALNORM_ERROR_KERNEL = 4            /* the kernel itself failed (e.g. out of memory) */
} halnorm_status;

void halnorm_norm_options_init(halnorm_norm_options* opt);

int halnorm_layer_norm_forward(const halnorm_tensor* x, const halnorm_tensor* weight /*nullable*/,
                               const halnorm_tensor* bias /*nullable*/,
                               const halnorm_norm_options* opt, halnorm_tensor* y,
                               halnorm_tensor* mean /*nullable, f32*/,
                               halnorm_tensor* rstd /*nullable, f32*/);
int halnorm_layer_norm_backward(const halnorm_tensor* dy, const halnorm_tensor* x,
                                const halnorm_tensor* mean, const halnorm_tensor* rstd,
                                const halnorm_tensor* weight /*nullable*/,
                                const halnorm_norm_options* opt, halnorm_tensor* dx,
                                halnorm_tensor* dweight /*nullable*/,
                                halnorm_tensor* dbias /*nullable*/);
int halnorm_rms_norm_forward(const halnorm_tensor* x, const halnorm_tensor* weight /*nullable*/,
                             const halnorm_norm_options* opt, halnorm_tensor* y,
                             halnorm_tensor* rstd /*nullable*/);
int halnorm_rms_norm_backward(const halnorm_tensor* dy, const halnorm_tensor* x,
                              const halnorm_tensor* rstd, const halnorm_tensor* weight /*nullable*/,
                              const halnorm_norm_options* opt, halnorm_tensor* dx,
                              halnorm_tensor* dweight /*nullable*/);
/* x is NCHW (rank 4). mean/rstd: [N,H,W] for AXES_C, [N] for CHW, [N,C] for HW. */
int halnorm_layer_norm2d_forward(const halnorm_tensor* x, const halnorm_tensor* weight,
                                 const halnorm_tensor* bias, halnorm_axes axes, float eps,
                                 halnorm_tensor* y, halnorm_tensor* mean, halnorm_tensor* rstd);
int halnorm_layer_norm2d_backward(const halnorm_tensor* dy, const halnorm_tensor* x,
                                  const halnorm_tensor* mean, const halnorm_tensor* rstd,
                                  const halnorm_tensor* weight, halnorm_axes axes,
                                  halnorm_tensor* dx, halnorm_tensor* dweight,
                                  halnorm_tensor* dbias);
const char* halnorm_last_error(void); /* thread-local */
void halnorm_set_num_threads(int n);  /* n <= 0: one per core */

/* Dispatch tuning. Dispatch picks each call's kernel config by shape from a
 * runtime tuning file (written by tools/autotune for this library build),
 * else from the table built in, else a default. HALNORM_TUNING_FILE=<path>
 * loads one at the first call. This loads `path` instead (NULL: back to the
 * built-in table). A bad file returns HALNORM_ERROR_INVALID_ARGUMENT,
 * halnorm_last_error() names the path and line, and the table in use stays.
 * Safe while other threads run kernels. */
int halnorm_load_tuning_file(const char* path);
/* What dispatch uses now, e.g. "built-in table", "tuning file /x", or
 * "built-in table (HALNORM_TUNING_FILE=/x rejected: line 3: ...)". The
 * string stays valid for the life of the process. */
const char* halnorm_tuning_source(void);

#ifdef __cplusplus
}
#endif

#endif /* HALNORM_RUNTIME_HALNORM_C_H_ */
