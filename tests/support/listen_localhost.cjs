// Preloaded into the reference MCP server (`node --require`) by tests/mcp_everything.rs: the
// server listens on every interface; the tests want it on 127.0.0.1 only. Any listen given a
// port and no host gets 127.0.0.1.
"use strict";
const net = require("node:net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const first = args[0];
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    if (typeof args[1] !== "string") {
      args.splice(1, 0, "127.0.0.1");
    }
  } else if (first && typeof first === "object" && first.port !== undefined && !first.host && !first.path) {
    args[0] = { ...first, host: "127.0.0.1" };
  }
  return listen.apply(this, args);
};
