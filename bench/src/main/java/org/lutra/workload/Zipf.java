package org.lutra.workload;

import org.apache.commons.rng.sampling.distribution.RejectionInversionZipfSampler;
import org.apache.commons.rng.sampling.distribution.SharedStateDiscreteSampler;

import java.util.SplittableRandom;

/**
 * Zipfian draws of 0 .. n-1 (rank 0 the most popular), P(rank k) proportional to 1 / (k+1)^s:
 * commons-rng's rejection-inversion sampler (Hörmann and Derflinger), over a client's own random.
 */
public final class Zipf {
    private final SharedStateDiscreteSampler sampler;

    public Zipf(SplittableRandom random, int n, double exponent) {
        this.sampler = RejectionInversionZipfSampler.of(random::nextLong, n, exponent);
    }

    public int next() {
        return sampler.sample() - 1;
    }
}
