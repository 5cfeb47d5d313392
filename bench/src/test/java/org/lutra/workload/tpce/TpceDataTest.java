package org.lutra.workload.tpce;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.HashSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TpceDataTest {
    private final TpceData data = new TpceData(3, 5);

    @Test
    void chunksHoldTheirCustomersAccountsAndBrokers() {
        assertEquals(3000, data.customers);
        assertEquals(30, data.brokers);
        assertTrue(data.accounts > 3 * 4000 && data.accounts < 3 * 6000, data.accounts + " accounts");
        long cross = 0;
        for (int a = 1; a <= data.accounts; a++) {
            int customerChunk = data.chunkOfCustomer(data.customerOf[a - 1]);
            int brokerChunk = (data.brokerOf[a - 1] - 1) / TpceData.BROKERS_PER_CHUNK;
            if (customerChunk != brokerChunk) cross++;
        }
        double share = (double) cross / data.accounts;
        assertTrue(share > 0.005 && share < 0.02, "accounts with a broker in another chunk: " + share);
    }

    @Test
    void taxIdsAreUnique() {
        var seen = new HashSet<String>();
        for (int c = 1; c <= data.customers; c++) assertTrue(seen.add(TpceData.taxId(c)), TpceData.taxId(c));
    }

    @Test
    void loadedBalancesAreOpeningBalancesPlusCompletedTrades() {
        var tables = data.tables();
        var accounts = tables.get(2).rows();
        var trades = tables.get(3).rows();
        var settled = new BigDecimal[data.accounts + 1];
        java.util.Arrays.fill(settled, BigDecimal.ZERO);
        int pending = 0;
        for (Object[] t : trades) {
            if (t[2].equals("PNDG")) {
                pending++;
                continue;
            }
            var o = data.order((Long) t[0]);
            int a = ((Long) t[8]).intValue();
            settled[a] = settled[a].add(o.settlement());
        }
        assertEquals(data.accounts / TpceData.PENDING_EVERY, pending);
        for (Object[] a : accounts) {
            int id = ((Long) a[0]).intValue();
            assertEquals(0, data.openingBalance(id).add(settled[id]).compareTo((BigDecimal) a[5]), "account " + id);
        }
    }
}
