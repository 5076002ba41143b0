-- loadtest.lua -- wrk script of make loadtest: each connection asks, in
-- turn, for a running job's status and for the first page of the job
-- list.  The job's path is the script's argument.
local paths = {}
local n = 0

function init(args)
    paths = {args[1], "/v1/jobs?page_size=20"}
end

function request()
    n = n + 1
    return wrk.format("GET", paths[n % 2 + 1])
end
