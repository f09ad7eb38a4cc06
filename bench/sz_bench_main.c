/*
 * sz_bench_main.c -- the splitzip-bench program: splitzip_bench_main() (sz_bench.c) as main.
 */
#include "sz_bench.h"

int main(int argc, char **argv)
{
	return splitzip_bench_main(argc, argv);
}
