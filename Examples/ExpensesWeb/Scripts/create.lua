-- wrk script: POST /api/expenses with a note unique to each request ("load <prefix> <thread>-<n>"),
-- counting the requests each thread sends. `done` prints "sent <S> answered <R> created <C>".
-- WRK_PREFIX names the run, so several runs against one database can be told apart.
local threads = {}
local prefix = os.getenv("WRK_PREFIX") or "run"

function setup(thread)
    thread:set("number", #threads + 1)
    table.insert(threads, thread)
end

function init(args)
    sent = 0
    created = 0
    wrk.method = "POST"
    wrk.headers["Content-Type"] = "application/json"
end

function request()
    sent = sent + 1
    local body = string.format('{"amount": 1.25, "note": "load %s %d-%d", "category": "Food"}', prefix, number, sent)
    return wrk.format("POST", "/api/expenses", nil, body)
end

function response(status, headers, body)
    if status == 201 then created = created + 1 end
end

function done(summary, latency, requests)
    local sent_all, created_all = 0, 0
    for _, thread in ipairs(threads) do
        sent_all = sent_all + thread:get("sent")
        created_all = created_all + thread:get("created")
    end
    io.write(string.format("sent %d answered %d created %d\n", sent_all, summary.requests, created_all))
end
