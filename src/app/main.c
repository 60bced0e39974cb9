/* main.c — PLACEHOLDER for the gpusim program. */
#include <stdio.h>
int main(void) { puts("gpusim"); return 0; }
