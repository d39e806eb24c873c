// The dictionary's classifier section (FORMAT.md, version 3): the ridge classifier over the
// distances to every model, its class names and the prototype subset.
#pragma once

#include "actionlearn.hpp"
#include "actionlearn_io.hpp"

namespace cvis::actionlearn::detail {

// The classifier fields of validate(Dictionary): none at all without a ridge classifier.
// Errors: kInvalidArgument naming the field.
Status validate_ridge(const Dictionary& d);
// Appends the section (a dictionary with a valid ridge classifier).
void write_ridge(const Dictionary& d, io::Writer* w);
// Reads the section into d (its models already read), checking every count and range before it
// is used. Errors: kIoError naming the field or the truncation.
Status parse_ridge(io::Reader* rd, Dictionary* d);

} // namespace cvis::actionlearn::detail
