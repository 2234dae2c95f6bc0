#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension HTTPServer {
    /// How the server listens and what it protects itself against.
    public struct Configuration: Sendable {
        /// The address to bind (an IPv4 or IPv6 literal, or a host name); only that address is
        /// bound, never every interface unless asked (`0.0.0.0`, `::`).
        public var host: String
        /// The port; `0` picks a free one (see ``HTTPServer/port``).
        public var port: Int
        /// The threads that run the server, each running one libmicrohttpd epoll daemon that
        /// accepts on a socket of its own, over which the kernel spreads new connections;
        /// default: the number of cores.
        public var threads: Int
        /// The largest request body accepted; larger ones are answered `413`.
        public var maxBodySize: Int
        /// Seconds a kept-alive connection may wait between an answer and its next request, and
        /// seconds of inactivity after which any connection is closed.
        public var connectionTimeout: Int
        /// Seconds within which a request must arrive whole (request line, headers and body):
        /// counted from the connection's opening for its first request, from the request line for
        /// later ones. A deadline, not a timeout of inactivity: a client that trickles a byte now
        /// and then is closed when it passes. Bodies must arrive at 100 KB/s at least to reach
        /// 1 MiB in the default 10 s.
        public var readTimeout: Int
        /// The most connections served at once, shared out evenly among the threads: a connection
        /// over its thread's share waits in the listen backlog until one of that thread's closes.
        public var connectionLimit: Int
        /// The most connections one client address may hold at once (0: no limit); a connection
        /// over it is closed as soon as it is accepted. Protects a server facing the internet
        /// from one address taking every connection. Behind a reverse proxy every connection
        /// comes from the proxy: set it to 0, or above the proxy's number of connections.
        public var connectionsPerClient: Int
        /// IP addresses (`10.0.0.1`, `::1`) that ``connectionsPerClient`` does not limit: the
        /// reverse proxies in front of the server, whose connections carry many clients.
        public var unlimitedClients: [String]
        /// Memory per connection for the request line and headers: 16 KB by default, which
        /// reads headers of up to about 14 KB (Node.js allows 16 KB); libmicrohttpd answers
        /// larger ones with `431` itself. libmicrohttpd 0.9 clears this memory for every request
        /// on a connection, so more of it costs time on every request, not only memory.
        public var connectionMemoryLimit: Int
        /// How long ``HTTPServer/stop()`` lets in-flight requests finish before answering the
        /// ones still waiting with `503`.
        public var shutdownGracePeriod: Duration

        /// A configuration; every parameter has a safe default.
        public init(
            host: String = "127.0.0.1", port: Int = 8080, threads: Int = Configuration.defaultThreads,
            maxBodySize: Int = 1 << 20, connectionTimeout: Int = 30, readTimeout: Int = 10, connectionLimit: Int = 1024,
            connectionsPerClient: Int = 64, unlimitedClients: [String] = [], connectionMemoryLimit: Int = 16 << 10,
            shutdownGracePeriod: Duration = .seconds(10)
        ) {
            self.host = host
            self.port = port
            self.threads = threads
            self.maxBodySize = maxBodySize
            self.connectionTimeout = connectionTimeout
            self.readTimeout = readTimeout
            self.connectionLimit = connectionLimit
            self.connectionsPerClient = connectionsPerClient
            self.unlimitedClients = unlimitedClients
            self.connectionMemoryLimit = connectionMemoryLimit
            self.shutdownGracePeriod = shutdownGracePeriod
        }

        /// The number of online cores (at least 1).
        public static var defaultThreads: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
    }
}
