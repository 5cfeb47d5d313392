package org.lutra.txn;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * An XA transaction id as MySQL's XA statements take it: global transaction id, branch qualifier,
 * format id. Lutra's branches carry {@link #LUTRA_FORMAT} and a {@link GlobalId} as gtrid; the
 * branch qualifier is the partition's database, unique on its server, so that recovery of one
 * logical database never touches another's branches on a shared server.
 */
public record Xid(String gtrid, String bqual, int formatId) {
    /** "LTRA": marks a branch as Lutra's; recovery leaves every other format alone. */
    public static final int LUTRA_FORMAT = 0x4C545241;
    static final int MAX_PART_BYTES = 64;

    public Xid {
        if (bytes(gtrid).length > MAX_PART_BYTES || bytes(bqual).length > MAX_PART_BYTES) {
            throw new IllegalArgumentException("XA gtrid and bqual are limited to 64 bytes: " + gtrid + " / " + bqual);
        }
    }

    static Xid lutra(GlobalId id, String partitionDatabase) {
        return new Xid(id.toString(), partitionDatabase, LUTRA_FORMAT);
    }

    /** Hex literals, so no id can ever break the statement it is spliced into. */
    String sql() {
        return "X'" + HexFormat.of().formatHex(bytes(gtrid)) + "',X'" + HexFormat.of().formatHex(bytes(bqual)) + "'," + formatId;
    }

    boolean isLutra() {
        return formatId == LUTRA_FORMAT && GlobalId.parse(gtrid) != null;
    }

    /** One row of XA RECOVER: formatID, gtrid_length, bqual_length, data (gtrid then bqual). */
    static Xid fromRecoverRow(int formatId, int gtridLength, int bqualLength, byte[] data) {
        if (data == null || gtridLength < 0 || bqualLength < 0 || gtridLength + bqualLength > data.length) {
            return new Xid("", "", formatId);
        }
        return new Xid(new String(data, 0, gtridLength, StandardCharsets.ISO_8859_1),
                new String(data, gtridLength, bqualLength, StandardCharsets.ISO_8859_1), formatId);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Override
    public String toString() {
        return gtrid + "/" + bqual;
    }
}
