# Turn a text file into a C function returning it as a NUL-terminated string.
# Usage: cmake -DINPUT=file -DOUTPUT=file.c [-DNAME=function] [-DBEFORE=file] -P embed_text.cmake
# BEFORE: a file whose text comes first (the reference runner is embedded
# after the IR -> PyTorch interpreter it uses).
# NAME defaults to sslat_default_space_json, the built-in space, declared (and
# exported) by sslat.h; another name gets a plain declaration.
if(NOT DEFINED NAME)
  set(NAME sslat_default_space_json)
endif()
if(NAME STREQUAL "sslat_default_space_json")
  set(declaration "#include \"sslat.h\"")
else()
  set(declaration "const char *${NAME}(void);")
endif()
file(READ ${INPUT} hex HEX)
if(DEFINED BEFORE)
  file(READ ${BEFORE} before HEX)
  set(hex "${before}${hex}")
  set(INPUT "${BEFORE} and ${INPUT}")
endif()
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUTPUT}
  "/* Generated from ${INPUT} by cmake/embed_text.cmake; do not edit. */\n"
  "${declaration}\n"
  "static const char TEXT[] = {${bytes} 0x00};\n"
  "const char *${NAME}(void) { return TEXT; }\n")
