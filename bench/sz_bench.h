/*
 * sz_bench.h -- the splitzip CPU benchmark as a library function, so that the `splitzip` tool
 * can run it as `splitzip bench ...` and the `splitzip-bench` program as its main.
 */
#ifndef SZ_BENCH_H
#define SZ_BENCH_H

/*
 * splitzip_bench_main() runs the benchmark with command-line arguments argv[1..argc-1]
 * (argv[0] is the program name used in messages; see --help) and returns an exit status:
 * 0 on success, 1 on a failure (a codec error or a round trip that does not match), 2 on a
 * usage error. It prints to stdout (results) and stderr (errors).
 */
int splitzip_bench_main(int argc, char **argv);

#endif /* SZ_BENCH_H */
