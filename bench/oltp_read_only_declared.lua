#!/usr/bin/sysbench
-- sysbench's oltp_read_only with each transaction declared READ ONLY (START TRANSACTION READ ONLY instead of
-- BEGIN): what an application that says its transaction only reads pays (bench/sysbench.sh runs it beside the others).
require("oltp_common")

function prepare_begin()
   stmt.begin = con:prepare("START TRANSACTION READ ONLY")
end

function prepare_statements()
   prepare_point_selects()
   if not sysbench.opt.skip_trx then
      prepare_begin()
      prepare_commit()
   end
   if sysbench.opt.range_selects then
      prepare_simple_ranges()
      prepare_sum_ranges()
      prepare_order_ranges()
      prepare_distinct_ranges()
   end
end

function event()
   if not sysbench.opt.skip_trx then
      begin()
   end
   execute_point_selects()
   if sysbench.opt.range_selects then
      execute_simple_ranges()
      execute_sum_ranges()
      execute_order_ranges()
      execute_distinct_ranges()
   end
   if not sysbench.opt.skip_trx then
      commit()
   end
end
