#ifndef CP_COMMANDS_H
#define CP_COMMANDS_H
int cp_cmd_kernel(int argc, char **argv);
#endif
