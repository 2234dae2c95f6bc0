#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

/// Starts a daemon with every option in `options` (terminated by MHD_OPTION_END).
/// `MHD_start_daemon` is variadic and cannot be called from Swift; this passes the array
/// through `MHD_OPTION_ARRAY`, the one documented way to hand options over as data.
static inline struct MHD_Daemon *CMicroHTTPD_start(unsigned int flags,
                                                   uint16_t port,
                                                   MHD_AccessHandlerCallback handler,
                                                   void *handler_cls,
                                                   const struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/// The peer address of a connection, or NULL when libmicrohttpd does not know it.
static inline const struct sockaddr *CMicroHTTPD_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/// Formats one libmicrohttpd log message into `buffer` (the logger callback gets a va_list).
static inline void CMicroHTTPD_format_log(char *buffer, size_t size, const char *format, va_list arguments) {
    vsnprintf(buffer, size, format, arguments);
}

#endif
