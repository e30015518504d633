# Sourced by the CI scripts that start a service on a port of their own.
# free_port [TAKEN…]: prints a TCP port that nothing listens on now, chosen below the kernel's ephemeral range (so no
# outgoing connection, which takes its local port from that range, can hold it when the service listens), and not one
# of TAKEN. A fixed port once failed CI: 39310 lies in the ephemeral range (32768-60999) and was in use there.
free_port() {
  node -e '
    const net = require("node:net");
    const fs = require("node:fs");
    const taken = new Set(process.argv.slice(1).map(Number));
    let low = 32768;
    try { low = Number(fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]); } catch {}
    const from = 20000, to = Math.max(from + 1000, Math.min(low, 32768));
    const attempt = (left) => {
      if (left === 0) { console.error("free_port: no free port found"); process.exit(1); }
      const port = from + Math.floor(Math.random() * (to - from));
      if (taken.has(port)) return attempt(left - 1);
      const server = net.createServer();
      server.once("error", () => attempt(left - 1));
      server.listen(port, () => server.close(() => console.log(port)));
    };
    attempt(50);
  ' "$@"
}
