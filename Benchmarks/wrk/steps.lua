-- Scenario 5 of `make bench`: steps as a browser sends them. Each session alternates a form
-- POST /_step (movieIsPicked, from its wishlist page, with its CSRF token and a fresh _r) and a
-- Back visit (GET /wishlist), so its tree stays small.
-- Usage: wrk ... -s steps.lua URL -- SESSIONS_FILE   (lines: "id csrf from top", from SessionMaker --forms)

local sessions = {}
local next_session = 0
local sent = 0
thread_id = 0  -- set per thread by setup()

function setup(thread)
   thread_id = thread_id + 1
   thread:set("thread_id", thread_id)
end

function init(args)
   for line in io.lines(args[1]) do
      local id, csrf, from = line:match("^(%S+) (%S+) (%S+)")
      if id then table.insert(sessions, { id = id, csrf = csrf, from = from, step = true }) end
   end
   assert(#sessions > 0, "no sessions in " .. args[1])
end

function request()
   next_session = next_session % #sessions + 1
   local session = sessions[next_session]
   local cookie = { ["Cookie"] = "flowserver_session=" .. session.id }
   session.step = not session.step
   if not session.step then
      sent = sent + 1
      local body = "_step=movieIsPicked&withId=" .. (sent % 12 + 1) .. "&_from=" .. session.from
         .. "&_r=" .. string.format("%d-%x", thread_id, sent) .. "&_csrf=" .. session.csrf
      cookie["Content-Type"] = "application/x-www-form-urlencoded"
      return wrk.format("POST", "/_step", cookie, body)
   end
   return wrk.format("GET", "/wishlist", cookie)
end
