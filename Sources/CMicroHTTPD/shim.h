#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/prctl.h>
#endif

/// Starts a daemon with every option in `options` (terminated by MHD_OPTION_END), asking
/// `accept_policy` (unless NULL) whether to keep each connection it accepts.
/// `MHD_start_daemon` is variadic and cannot be called from Swift; this passes the array
/// through `MHD_OPTION_ARRAY`, the one documented way to hand options over as data.
static inline struct MHD_Daemon *CMicroHTTPD_start(unsigned int flags,
                                                   uint16_t port,
                                                   MHD_AcceptPolicyCallback accept_policy,
                                                   void *accept_policy_cls,
                                                   MHD_AccessHandlerCallback handler,
                                                   void *handler_cls,
                                                   const struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, port, accept_policy, accept_policy_cls, handler, handler_cls,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/// The socket context a connection's start notification set, or NULL.
static inline void *CMicroHTTPD_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/// Whether a connection notification tells of its start (else of its close).
static inline int CMicroHTTPD_connection_started(enum MHD_ConnectionNotificationCode code) {
    return code == MHD_CONNECTION_NOTIFY_STARTED;
}

/// A connection's socket, or -1 when libmicrohttpd does not say.
static inline int CMicroHTTPD_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// The peer address of a connection, or NULL when libmicrohttpd does not know it.
static inline const struct sockaddr *CMicroHTTPD_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/// The epoll descriptor of a daemon started with `MHD_USE_EPOLL` and no thread of its own, which
/// its event loop waits on; -1 when it has none.
static inline int CMicroHTTPD_epoll_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info == NULL ? -1 : info->epoll_fd;
}

/// How many connections a daemon without a thread of its own holds (call it on the thread that
/// runs the daemon: it also cleans up closed connections).
static inline unsigned int CMicroHTTPD_connection_count(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

/// Adds `fd` to a daemon's epoll set `epoll_fd`, for input, with a NULL event pointer: libmicrohttpd
/// 0.9's epoll loop skips such events (its "shutdown signal"), so `fd` only wakes its wait.
/// Returns 0, or -1 when it cannot (not Linux, or epoll_ctl failed).
static inline int CMicroHTTPD_add_wakeup_to_epoll(int epoll_fd, int fd) {
#ifdef __linux__
    struct epoll_event event;
    event.events = EPOLLIN;
    event.data.ptr = NULL;
    return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event);
#else
    (void)epoll_fd; (void)fd;
    return -1;
#endif
}

/// Names the calling thread (as `top -H` and debuggers show it; at most 15 bytes are kept).
static inline void CMicroHTTPD_name_current_thread(const char *name) {
#ifdef __linux__
    prctl(PR_SET_NAME, name, 0, 0, 0);
#else
    (void)name;
#endif
}

/// Formats one libmicrohttpd log message into `buffer` (the logger callback gets a va_list).
static inline void CMicroHTTPD_format_log(char *buffer, size_t size, const char *format, va_list arguments) {
    vsnprintf(buffer, size, format, arguments);
}

#endif
