/*
 * The limit: a minimal C program serving one fixed page with libmicrohttpd, configured like
 * MicroHTTP (one epoll daemon per thread, each accepting on a listening socket of its own
 * bound with SO_REUSEPORT, suspend/resume allowed; see Sources/MicroHTTP/Server/
 * ListeningSockets.swift) so the comparison measures our Swift layer and nothing else.
 *
 * One difference, kept on purpose: the daemons run on libmicrohttpd's own threads, the
 * simplest and cheapest loop, where MicroHTTP runs its own (Sources/MicroHTTP/Server/
 * DaemonLoop.swift) because libmicrohttpd 0.9.75's can sleep for the connection timeout with
 * exactly 128 requests unread. With few connections that loop lets libmicrohttpd wait, as
 * here; past 125 connections a thread it costs MicroHTTP one more system call per turn.
 *
 *   cc -O2 -o fixed-page-c fixed_page.c $(pkg-config --cflags --libs libmicrohttpd)
 *   ./fixed-page-c PORT PAGE_FILE [THREADS]
 */
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *page;
static size_t page_size;
static int first_call_marker;

static enum MHD_Result answer(void *cls, struct MHD_Connection *connection, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **con_cls) {
    (void)cls; (void)url; (void)method; (void)version; (void)upload_data;
    if (*con_cls == NULL) { /* queue on the second call: the first would close keep-alive */
        *con_cls = &first_call_marker;
        return MHD_YES;
    }
    *upload_data_size = 0;
    struct MHD_Response *response =
        MHD_create_response_from_buffer(page_size, page, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(response, "Content-Type", "text/html; charset=utf-8");
    enum MHD_Result result = MHD_queue_response(connection, MHD_HTTP_OK, response);
    MHD_destroy_response(response);
    return result;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s PORT PAGE_FILE [THREADS]\n", argv[0]);
        return 2;
    }
    FILE *file = fopen(argv[2], "rb");
    if (file == NULL) { perror(argv[2]); return 1; }
    fseek(file, 0, SEEK_END);
    page_size = (size_t)ftell(file);
    fseek(file, 0, SEEK_SET);
    page = malloc(page_size);
    if (fread(page, 1, page_size, file) != page_size) { perror("read"); return 1; }
    fclose(file);

    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons((uint16_t)atoi(argv[1]));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    unsigned int threads = argc > 3 ? (unsigned int)atoi(argv[3]) : 2;
    if (threads < 1 || threads > 64) { fprintf(stderr, "THREADS must be 1...64\n"); return 2; }

    struct MHD_Daemon *daemons[64];
    for (unsigned int i = 0; i < threads; i++) {
        int on = 1;
        int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
        setsockopt(listener, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on);
        if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, SOMAXCONN) != 0) {
            fprintf(stderr, "cannot listen on port %s\n", argv[1]);
            return 1;
        }
        daemons[i] = MHD_start_daemon(
            MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC,
            0, NULL, NULL, &answer, NULL,
            MHD_OPTION_LISTEN_SOCKET, listener,
            MHD_OPTION_CONNECTION_TIMEOUT, 30u,
            MHD_OPTION_CONNECTION_LIMIT, 1024u / threads,
            MHD_OPTION_END);
        if (daemons[i] == NULL) { fprintf(stderr, "cannot start libmicrohttpd\n"); return 1; }
    }
    printf("listening on http://127.0.0.1:%s\n", argv[1]);
    fflush(stdout);
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    sigprocmask(SIG_BLOCK, &signals, NULL);
    int received;
    sigwait(&signals, &received);
    for (unsigned int i = 0; i < threads; i++) MHD_stop_daemon(daemons[i]);
    free(page);
    return 0;
}
