// Registers every back end this binary was built with (the engine knows none
// by name; this is the one place that lists them).
#pragma once

namespace quelkit {
void register_all_backends();
}
