// The dictionary's classifier section (FORMAT.md, versions 3 and 4): the ridge classifier over the
// distances to every model, its class names and the prototype subset.
#pragma once

#include "actionlearn.hpp"
#include "actionlearn_io.hpp"

namespace cvis::actionlearn::detail {

// The classifier fields of validate(Dictionary): none at all without a ridge classifier.
// Errors: kInvalidArgument naming the field.
Status validate_ridge(const Dictionary& d);
// Appends the section of file version `version` (3: distance features only; 4: any) for a
// dictionary with a valid ridge classifier.
void write_ridge(const Dictionary& d, uint32_t version, io::Writer* w);
// Reads the section of file version `version` into d (its models already read), checking every
// count and range before it is used. Errors: kIoError naming the field or the truncation.
Status parse_ridge(io::Reader* rd, uint32_t version, Dictionary* d);

} // namespace cvis::actionlearn::detail
