#include "tests/variant_params.h"

#include "absl/strings/str_cat.h"

namespace halnorm::testutil {

std::vector<const internal::Variant*> RowNormVariants(internal::Direction direction) {
  std::vector<const internal::Variant*> variants;
  for (const internal::Variant& variant : internal::AllVariants()) {
    const bool row_norm =
        variant.op == internal::Op::kLayerNorm || variant.op == internal::Op::kRmsNorm;
    if (row_norm && variant.direction == direction) variants.push_back(&variant);
  }
  return variants;
}

void PrintTo(const VariantAndCase& param, std::ostream* os) {
  *os << param.variant->name << " (" << param.variant->config << ") ";
  PrintTo(param.row_case, os);
}

std::vector<VariantAndCase> VariantsAndCases(internal::Direction direction) {
  std::vector<VariantAndCase> params;
  for (const internal::Variant* variant : RowNormVariants(direction)) {
    for (RowNormCase& row_case : RowNormCases(*variant)) {
      params.push_back({variant, std::move(row_case)});
    }
  }
  return params;
}

std::string Sanitize(std::string name) {
  for (char& c : name) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!keep) c = '_';
  }
  return name;
}

std::string VariantTestName(const ::testing::TestParamInfo<const internal::Variant*>& info) {
  return Sanitize(info.param->name);
}

std::string VariantAndCaseTestName(const ::testing::TestParamInfo<VariantAndCase>& info) {
  return Sanitize(absl::StrCat(info.param.variant->name, "__", info.param.row_case.name));
}

}  // namespace halnorm::testutil
