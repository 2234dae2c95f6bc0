-- Steps at the top of a grown session, as a browser or an API client sends them: each session
-- alternates a step that pushes a movie from its top page and a Back visit to that page (which
-- pops the movie), so its tree keeps its size, whatever that size is.
-- Usage: wrk ... -s steps_at_top.lua URL -- SESSIONS_FILE KIND
--   SESSIONS_FILE: lines "id csrf from top" (Benchmarks/step_cost.py); KIND: form or api.

local sessions = {}
local next_session = 0
local sent = 0
local kind = "form"

function init(args)
   for line in io.lines(args[1]) do
      local id, csrf, from, top = line:match("^(%S+) (%S+) (%S+) (%S+)")
      if id then table.insert(sessions, { id = id, csrf = csrf, from = from, top = top, step = true }) end
   end
   assert(#sessions > 0, "no sessions in " .. args[1])
   kind = args[2] or kind
end

function request()
   next_session = next_session % #sessions + 1
   local session = sessions[next_session]
   session.step = not session.step
   sent = sent + 1
   -- Movie 13 is never in the grown stacks, so the Back visit finds the top page, not another.
   if kind == "api" then
      local headers = { ["Authorization"] = "Bearer " .. session.id, ["Content-Type"] = "application/json" }
      if not session.step then
         return wrk.format("POST", "/api/v1/session/steps", headers,
            '{"step":{"name":"movieIsPicked","params":{"withId":13}},"from":' .. session.from .. '}')
      end
      return wrk.format("POST", "/api/v1/session/visits", headers, '{"url":"' .. session.top .. '"}')
   end
   local headers = { ["Cookie"] = "flowserver_session=" .. session.id }
   if not session.step then
      headers["Content-Type"] = "application/x-www-form-urlencoded"
      local body = "_step=movieIsPicked&withId=13&_from=" .. session.from
         .. "&_r=" .. string.format("%x", sent) .. "&_csrf=" .. session.csrf
      return wrk.format("POST", "/_step", headers, body)
   end
   return wrk.format("GET", session.top, headers)
end
