-- The soak tests' traffic (Tests/soak/soak.py): what a busy site's browsers and API clients send
-- at once. Each request goes to the next prepared session (round robin, per wrk thread) and is
-- one of: a page reload, a movie page (a visit when it is in the tree, else a deep link), a cast
-- deep link, a visit by the API, history and state reads, a link step, a form step, an API step,
-- and a cookie-less page (a new visitor).
-- Usage: wrk ... -s mix.lua URL -- SESSIONS_FILE ACKNOWLEDGED_FILE
--   SESSIONS_FILE: lines "id csrf wishlistNode"; ACKNOWLEDGED_FILE: each wrk thread appends
--   "session seq withId" for every API step the server acknowledged (200), to check against the
--   session's history afterwards.
-- done() prints one line: "soak-result {json}" with the counts soak.py asserts on.

local sessions = {}
local counter = 0
local statuses = {}
thread_id = 0
local threads = {}

function setup(thread)
   thread_id = thread_id + 1
   thread:set("thread_id", thread_id)
   table.insert(threads, thread)
end

function init(args)
   for line in io.lines(args[1]) do
      local id, csrf, node = line:match("^(%S+) (%S+) (%S+)")
      if id then table.insert(sessions, { id = id, csrf = csrf, node = node }) end
   end
   assert(#sessions > 0, "no sessions in " .. args[1])
   counter = thread_id * 7919
   acknowledged = io.open(args[2], "a")
   acknowledged:setvbuf("line")
   server_errors = 0
   unavailable = 0
   unavailable_without_retry = 0
   answers = 0
   last_answer = os.time()
end

-- The kinds of request and how many of every 40 requests are of each kind. New visitors are few:
-- until sessions cost nothing (issue 26), each stores a session, and the memory store's RSS would
-- then measure them rather than a leak.
local share = {
   reload = 8, movie = 6, history = 8, state = 2, link = 3, form = 4, apiStep = 2, apiVisit = 2, cast = 3,
   newVisitor = 1, deepLinkNewVisitor = 1,
}
local mix = {}
for _, kind in ipairs({ "reload", "movie", "history", "state", "link", "form", "apiStep", "apiVisit", "cast",
   "newVisitor", "deepLinkNewVisitor" }) do
   for _ = 1, share[kind] do table.insert(mix, kind) end
end
assert(#mix == 40)

local function cookie(session, extra)
   local headers = { ["Cookie"] = "flowserver_session=" .. session.id }
   for name, value in pairs(extra or {}) do headers[name] = value end
   return headers
end

local function bearer(session)
   return { ["Authorization"] = "Bearer " .. session.id, ["Content-Type"] = "application/json" }
end

function request()
   counter = counter + 1
   local session = sessions[counter % #sessions + 1]
   local kind = mix[(counter * 17) % #mix + 1]
   local movie = counter % 12 + 1
   local render = string.format("soak-%d-%x", thread_id, counter)
   if kind == "reload" then
      return wrk.format("GET", "/wishlist", cookie(session))
   elseif kind == "movie" then
      return wrk.format("GET", "/movies/" .. movie, cookie(session))
   elseif kind == "cast" then
      return wrk.format("GET", "/cast/" .. (counter % 24 + 1), cookie(session))
   elseif kind == "history" then
      return wrk.format("GET", "/api/v1/session/history?limit=20", cookie(session))
   elseif kind == "state" then
      return wrk.format("GET", "/api/v1/session", bearer(session))
   elseif kind == "link" then
      return wrk.format("GET", "/_step/movieIsPicked?withId=" .. movie .. "&_from=" .. session.node .. "&_r=" .. render,
         cookie(session))
   elseif kind == "form" then
      local body = "_step=movieIsPicked&withId=" .. movie .. "&_from=" .. session.node .. "&_r=" .. render
         .. "&_csrf=" .. session.csrf
      return wrk.format("POST", "/_step", cookie(session, { ["Content-Type"] = "application/x-www-form-urlencoded" }), body)
   elseif kind == "apiStep" then
      return wrk.format("POST", "/api/v1/session/steps", bearer(session),
         '{"step":{"name":"movieIsPicked","params":{"withId":' .. movie .. '}}}')
   elseif kind == "apiVisit" then
      return wrk.format("POST", "/api/v1/session/visits", bearer(session), '{"url":"/wishlist"}')
   elseif kind == "newVisitor" then
      return wrk.format("GET", "/", {})
   else
      return wrk.format("GET", "/movies/" .. movie, {})
   end
end

function response(status, headers, body)
   answers = answers + 1
   last_answer = os.time()
   if status == 503 then
      unavailable = unavailable + 1
      if headers["Retry-After"] == nil then unavailable_without_retry = unavailable_without_retry + 1 end
   elseif status >= 500 then
      server_errors = server_errors + 1
   elseif status == 200 and body:sub(1, 9) == '{"entry":' and body:find('"source":"api"', 1, true) then
      local seq = body:match('^{"entry":{"seq":(%d+)')
      local movie = body:match('"step":{"name":"movieIsPicked","params":{"withId":(%d+)}}')
      local session = body:match('"state":{"session":"(%x+)"')
      if seq and session then acknowledged:write(session, " ", seq, " ", movie or "-", "\n") end
   end
end

function done(summary, latency, requests)
   -- wrk counts no timeout for a connection that never hears back; a thread whose last answer
   -- came long before the end shows a server that stopped answering.
   local errors, answered, oldest, unavailable, without_retry = 0, 0, os.time(), 0, 0
   for _, thread in ipairs(threads) do
      errors = errors + thread:get("server_errors")
      unavailable = unavailable + thread:get("unavailable")
      without_retry = without_retry + thread:get("unavailable_without_retry")
      answered = answered + thread:get("answers")
      oldest = math.min(oldest, thread:get("last_answer"))
   end
   io.write(string.format(
      'soak-result {"requests": %d, "answered": %d, "silentSeconds": %d, "serverErrors": %d, "unavailable": %d, '
         .. '"unavailableWithoutRetryAfter": %d, "connectErrors": %d, "readErrors": %d, '
         .. '"writeErrors": %d, "timeouts": %d, "seconds": %.3f, "p50ms": %.3f, "p99ms": %.3f, "maxms": %.3f}\n',
      summary.requests, answered, os.time() - oldest, errors, unavailable, without_retry, summary.errors.connect, summary.errors.read, summary.errors.write,
      summary.errors.timeout, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
      latency.max / 1000))
end
