# Turn a text file into a C function returning it as a NUL-terminated string.
# Usage: cmake -DINPUT=file.json -DOUTPUT=file.c -P embed_text.cmake
file(READ ${INPUT} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUTPUT}
  "/* Generated from ${INPUT} by cmake/embed_text.cmake; do not edit. */\n"
  "#include \"sslat.h\"\n"
  "static const char DEFAULT_SPACE[] = {${bytes} 0x00};\n"
  "const char *sslat_default_space_json(void) { return DEFAULT_SPACE; }\n")
