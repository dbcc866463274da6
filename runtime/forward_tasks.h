// How many rows each parallel task of a CPU row-norm forward may take: the
// kernels' task_rows input. A kernel takes the smaller of it and its
// rows_per_task knob (schedules/row_norm_cpu.cc splits the rows by that).
//
// The knob is tuned for calls with rows to spare. A call with fewer rows
// than threads x rows_per_task would leave threads idle (16 rows under
// 16-row tasks ran on one of two threads), so there the rows are shared out
// evenly, down to a floor of 16 KiB a task: below it the hand-over costs
// more than the task (~2 us a call on the Intel VM: LayerNorm bf16 16x128
// 1.4 -> 3.4 us split in two). Above it a small call that splits badly runs
// on one thread instead (small_calls.h), so the floor, 64 KiB before that,
// went down: Zen 4 VM, 2 threads, GB/s, 64 KiB -> 16 KiB, 3 interleaved
// runs: LayerNorm bf16 16x768 16.8 -> 21.7, f16 16x768 16.8 -> 21.7 (one
// run with the vCPUs on one core: 17.4 -> 16.6), RMSNorm bf16 16x768 22.4
// -> 27.5 (two runs of three); 16x128 and 1x16384 unchanged. LayerNorm bf16
// forward on the Intel VM, us a call, 1 thread -> 2 threads sharing the
// rows (the table's 16-row-task configs, which ran 2-thread calls as one
// task): 16x4096 17.9 -> 12.2, 16x16384 59 -> 41, 5x16384 20.5 -> 18.5.
// The kernels size their statistics by their own groups, so the runtime
// split allocates nothing (schedules/row_norm_cpu.cc); 1-thread calls and
// large ones ran as before (0.97-1.08x in the same A/B).
#ifndef HALNORM_RUNTIME_FORWARD_TASKS_H_
#define HALNORM_RUNTIME_FORWARD_TASKS_H_

#include <cstdint>

namespace halnorm::internal {

// The kernel's parallel loops run over tasks of rows along r and over the
// b_extent lines; row_bytes: what one row reads and writes (x and y, and the
// residual's two tensors where fused). Never more than r_extent: the kernel
// walks a task's rows up to task_rows, empty ones included (as the backward
// walks its chunks: row_norm_backward.cc RowsPerChunk), so an uncapped
// 1-row call on a 64-row-task config stepped through 63 empty rows
// (LayerNorm f32 1x2048, 1 thread: 1.18 -> 0.95 us a call).
int32_t ForwardTaskRows(int64_t r_extent, int64_t b_extent, int64_t row_bytes, int threads);

}  // namespace halnorm::internal

#endif  // HALNORM_RUNTIME_FORWARD_TASKS_H_
