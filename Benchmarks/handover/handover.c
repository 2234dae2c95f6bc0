// What it costs this machine to hand work from one thread to another that sleeps: two threads
// of one process pass a byte back and forth through two pipes, each sleeping in read() until
// the other writes. Prints the CPU both threads spent (their schedstat run time) and the wall
// time, per hand-over. Usage: handover COUNT [CORE [ANSWERER_CORE]]: with CORE, the first thread
// on that core, and the answering thread on ANSWERER_CORE (on CORE too when not given).
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int there[2], back[2];
static pid_t threads[2];
static int answerer_core = -1;

/// Keeps the calling thread on `core`.
static void pin(int core) {
    cpu_set_t cores;
    CPU_ZERO(&cores);
    CPU_SET(core, &cores);
    sched_setaffinity(0, sizeof cores, &cores);
}

/// Nanoseconds thread `tid` of this process has run.
static double run_ns(pid_t tid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", tid);
    FILE *file = fopen(path, "r");
    double ns = 0;
    if (!file || fscanf(file, "%lf", &ns) != 1) { perror(path); exit(1); }
    fclose(file);
    return ns;
}

/// Answers every byte until the pipe closes.
static void *answerer(void *unused) {
    (void)unused;
    threads[1] = (pid_t)syscall(SYS_gettid);
    if (answerer_core >= 0) pin(answerer_core);
    char byte;
    while (read(there[0], &byte, 1) == 1) {
        if (write(back[1], &byte, 1) != 1) break;
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: handover COUNT [CORE [ANSWERER_CORE]]\n"); return 2; }
    long count = atol(argv[1]);
    if (argc > 2) pin(atoi(argv[2]));  // the answerer inherits it, unless given its own
    if (argc > 3) answerer_core = atoi(argv[3]);
    if (pipe(there) || pipe(back)) { perror("pipe"); return 1; }
    threads[0] = (pid_t)syscall(SYS_gettid);
    pthread_t thread;
    pthread_create(&thread, NULL, answerer, NULL);
    usleep(100000);
    double before = run_ns(threads[0]) + run_ns(threads[1]);
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    char byte = 1;
    for (long i = 0; i < count; i++) {
        if (write(there[1], &byte, 1) != 1 || read(back[0], &byte, 1) != 1) { perror("pipe"); return 1; }
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    double cpu = run_ns(threads[0]) + run_ns(threads[1]) - before;
    double wall = (end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec);
    printf("%.2f %.2f\n", cpu / (2.0 * count) / 1000, wall / (2.0 * count) / 1000);
    close(there[1]);
    pthread_join(thread, NULL);
    return 0;
}
