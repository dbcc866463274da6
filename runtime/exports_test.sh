#!/usr/bin/env bash
# Checks that a shared library exports every halnorm_* function of the C
# header and nothing else.
set -euo pipefail
lib="$1"
exported=$(nm -D --defined-only "$lib" | awk '$2 == "T" {print $3}' | sort)
others=$(grep -v '^halnorm_' <<<"$exported" || true)
if [[ -n "$others" ]]; then
  echo "FAIL: $lib exports non-halnorm symbols:"; echo "$others" | head -20; exit 1
fi
for fn in halnorm_norm_options_init halnorm_layer_norm_forward halnorm_layer_norm_backward \
          halnorm_rms_norm_forward halnorm_rms_norm_backward halnorm_layer_norm2d_forward \
          halnorm_layer_norm2d_backward halnorm_last_error halnorm_set_num_threads \
          halnorm_load_tuning_file halnorm_tuning_source; do
  grep -qx "$fn" <<<"$exported" || { echo "FAIL: $lib does not export $fn"; exit 1; }
done
echo "PASS: $(wc -l <<<"$exported") symbols, all halnorm_*"
