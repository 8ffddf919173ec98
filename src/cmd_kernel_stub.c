#include "commands.h"
int cp_cmd_kernel(int argc, char **argv) { (void)argc; (void)argv; return 2; }
