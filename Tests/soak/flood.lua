-- Cookie-less requests as fast as wrk sends them, cycling through the paths given (what a
-- scanner, a crawler or a link preview sends). Used by Tests/soak/free_sessions.py.
-- Usage: wrk ... -s flood.lua URL -- PATH[,PATH...]
-- done() prints one line: "flood-result {json}": answers by status, 429s without Retry-After,
-- and answers other than pages that set a cookie.
local paths = {}
local counter = 0
thread_id = 0
local threads = {}

function setup(thread)
   thread_id = thread_id + 1
   thread:set("thread_id", thread_id)
   table.insert(threads, thread)
end

function init(args)
   for path in args[1]:gmatch("[^,]+") do table.insert(paths, path) end
   counter = thread_id
   statuses = {}
   limited_without_retry = 0
   cookies_on_errors = 0
end

function request()
   counter = counter + 1
   return wrk.format("GET", paths[counter % #paths + 1], {})
end

function response(status, headers, body)
   statuses[status] = (statuses[status] or 0) + 1
   if status == 429 and headers["Retry-After"] == nil then limited_without_retry = limited_without_retry + 1 end
   if status >= 400 and headers["Set-Cookie"] ~= nil then cookies_on_errors = cookies_on_errors + 1 end
end

function done(summary, latency, requests)
   local total, without_retry, cookies = {}, 0, 0
   for _, thread in ipairs(threads) do
      for status, count in pairs(thread:get("statuses")) do total[status] = (total[status] or 0) + count end
      without_retry = without_retry + thread:get("limited_without_retry")
      cookies = cookies + thread:get("cookies_on_errors")
   end
   local parts = {}
   for status, count in pairs(total) do table.insert(parts, string.format('"%d": %d', status, count)) end
   io.write(string.format('flood-result {"statuses": {%s}, "limitedWithoutRetryAfter": %d, "cookiesOnErrors": %d, "errors": %d}\n',
      table.concat(parts, ", "), without_retry, cookies,
      summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
