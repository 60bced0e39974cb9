# docmask.sh — what a doc page's examples leave out when they are compared
# with real output (sourced by tests/cli/why.sh and tests/cli/course.sh):
#   doc_mask < IN > OUT   replaces bus addresses and program counters (0x and
#                         six to eight hex digits) by ADDRESS, and the JSON
#                         address fields' values by A
# Bus addresses move whenever the driver or a helper's programs change size.
# (Register values printed as 0x and eight digits are masked with them; a
# trace's floats beside them are not.)
doc_mask() {
  sed -E 's/0x[0-9a-f]{6,8}/ADDRESS/g; s/"(address|program|uniforms|vertex_program|record)": [0-9]+/"\1": A/g'
}
