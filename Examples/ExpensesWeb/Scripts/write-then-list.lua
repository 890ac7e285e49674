-- wrk script: alternately POST /api/expenses and GET /api/expenses?limit=20, so every list
-- follows a save of the same server (under read-your-writes a replica must replay it first).
local threads = {}

function setup(thread)
    thread:set("number", #threads + 1)
    table.insert(threads, thread)
end

function init(args)
    sent = 0
end

function request()
    sent = sent + 1
    if sent % 2 == 1 then
        local body = string.format('{"amount": 1.25, "note": "mixed %d-%d", "category": "Food"}', number, sent)
        return wrk.format("POST", "/api/expenses", {["Content-Type"] = "application/json"}, body)
    end
    return wrk.format("GET", "/api/expenses?limit=20")
end
