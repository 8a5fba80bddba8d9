-- wrk script of bench/http_record.py: POST one infraction per request, each with its own
-- idempotency key, and report what bench/http_record.py reads back (requests, non-2xx answers, the socket errors
-- and the latency quantiles, to pool over several runs).
--
--   wrk -t1 -c16 -d10s -s bench/http_record.lua http://127.0.0.1:PORT -- PATH TOKEN PLAYERS RUN
--
-- PATH: what is posted to (/api/v1/tournaments/ID/infractions, or the bare endpoint's
-- /insert); TOKEN: the bearer token ("-" for none); PLAYERS: the players igrok000 …
-- igrok(PLAYERS-1) of the tournament; RUN: a word unique to this run of wrk, that the keys
-- start with (a key is RUN-THREAD-N, so never used twice across runs).

local INFRACTIONS = {"procedure.minor", "cards.drawing-extra", "gameplay.slow-play",
                     "cards.looking-at-extra", "procedure.significant", "marked-cards.minor"}

local threads = {}
local counter = 0

function setup(thread)
   counter = counter + 1
   thread:set("id", counter)
   table.insert(threads, thread)
end

function init(args)
   path = args[1]
   local token = args[2]
   players = tonumber(args[3])
   run = args[4]
   n = 0
   non2xx = 0
   sample = ""
   math.randomseed(id * 7919 + #run)
   headers = {["Content-Type"] = "application/json"}
   if token ~= "-" then
      headers["Authorization"] = "Bearer " .. token
   end
end

function request()
   n = n + 1
   local body = string.format(
      '{"infraction":"%s","player":"igrok%03d","round":%d,"idempotency_key":"%s-%d-%d"}',
      INFRACTIONS[math.random(#INFRACTIONS)], math.random(0, players - 1), 1 + n % 9,
      run, id, n)
   return wrk.format("POST", path, headers, body)
end

function response(status, headers, body)
   if status < 200 or status > 299 then
      non2xx = non2xx + 1
      if sample == "" then
         sample = status .. " " .. string.sub(string.gsub(body or "", "%s+", " "), 1, 300)
      end
   end
end

function done(summary, latency, requests)
   local bad, first = 0, ""
   for _, thread in ipairs(threads) do
      bad = bad + thread:get("non2xx")
      local s = thread:get("sample")
      if first == "" and s ~= nil then
         first = s
      end
   end
   local e = summary.errors
   io.write(string.format("BENCH requests=%d duration_us=%d non2xx=%d connect=%d read=%d "
                          .. "write=%d timeout=%d\n", summary.requests, summary.duration,
                          bad, e.connect, e.read, e.write, e.timeout))
   -- the latency quantiles at 0.05 %, 0.15 % … 99.95 % (µs): a thousand points, each standing
   -- for a thousandth of the requests, that bench/http_record.py pools over runs
   local q = {}
   if summary.requests > 0 then
      for k = 1, 1000 do
         q[k] = string.format("%d", latency:percentile((k - 0.5) / 10))
      end
   end
   io.write("BENCH_Q " .. table.concat(q, " ") .. "\n")
   io.write("BENCH_SAMPLE " .. first .. "\n")
end
