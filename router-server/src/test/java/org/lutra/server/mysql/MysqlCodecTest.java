package org.lutra.server.mysql;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;
import org.lutra.protocol.Value;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The MySQL listener's codec pieces, each against values a MariaDB 11.4 server was seen to send or MySQL's manual gives. */
class MysqlCodecTest {
    @Test
    void doublesPrintAsMariaDbPrintsThem() {
        // measured with the mariadb client against MariaDB 11.4.5
        assertEquals("150000000000000", FloatingText.ofDouble(1.5e14));
        assertEquals("1.5e15", FloatingText.ofDouble(1.5e15));
        assertEquals("1234567890123456.8", FloatingText.ofDouble(1.2345678901234567e15));
        assertEquals("1.2345678901234568e16", FloatingText.ofDouble(1.2345678901234567e16));
        assertEquals("0.000000000000001", FloatingText.ofDouble(1e-15));
        assertEquals("1e-16", FloatingText.ofDouble(1e-16));
        assertEquals("-1.5e15", FloatingText.ofDouble(-1.5e15));
        assertEquals("5e-324", FloatingText.ofDouble(Double.MIN_VALUE));
        assertEquals("3.14159", FloatingText.ofFloat(3.14159265f));
        assertEquals("16777200", FloatingText.ofFloat(16777217f));
        assertEquals("1.23457e15", FloatingText.ofFloat(1.2345678e15f));
        assertEquals("1e15", FloatingText.ofFloat(1e15f));
    }

    @Test
    void fixedDecimalsAndFractions() {
        assertEquals("2.67", TextValues.fixed(2.675, 2)); // the exact binary value is below 2.675
        assertEquals("1" + "0".repeat(300) + ".00", TextValues.fixed(1e300, 2));
        assertEquals("-0.00", TextValues.fixed(-0.0, 2));
        assertEquals("12:00:00.500", TextValues.withFraction("12:00:00.5", 3));
        assertEquals("2024-01-01 00:00:00", TextValues.withFraction("2024-01-01 00:00:00.0", 0));
        assertEquals("2024-01-01 00:00:00.000000", TextValues.withFraction("2024-01-01 00:00:00", 6));
    }

    @Test
    void statementTextSplitsAndCountsOutsideQuotesAndComments() {
        assertEquals(List.of("SELECT 1", " SELECT ';' ", " /* ; */ SELECT 2"), StatementText.split("SELECT 1; SELECT ';' ; /* ; */ SELECT 2;  "));
        assertEquals(List.of("SELECT 1 -- ;\n"), StatementText.split("SELECT 1 -- ;\n"));
        assertEquals(List.of(""), StatementText.split(""));
        assertEquals(2, StatementText.paramCount("SELECT ?, '?', `?`, \"?\" /* ? */ FROM t WHERE a = ? # ?\n"));
        assertEquals(1, StatementText.paramCount("SELECT 'it''s', ?"));
    }

    @Test
    void binaryTemporalValues() {
        ByteBuf b = Unpooled.buffer();
        BinaryValues.dateTime(b, "2024-02-29 13:45:00.000123");
        assertEquals(12, b.readableBytes());
        assertEquals(11, b.readByte());
        assertEquals(2024, b.readShortLE());
        b.clear();
        BinaryValues.dateTime(b, "0000-00-00 00:00:00");
        assertEquals(1, b.readableBytes());
        b.clear();
        BinaryValues.time(b, "-838:59:59");
        assertEquals(9, b.readableBytes());
        b.skipBytes(1);
        assertEquals(1, b.readByte()); // negative
        assertEquals(34, b.readIntLE()); // days
        assertEquals(22, b.readByte()); // hours
    }

    @Test
    void packetsAreJoinedAndAnOversizedOneIsRefusedAtItsHeader() {
        var channel = new EmbeddedChannel(new PacketDecoder(100, null));
        ByteBuf in = Unpooled.buffer();
        in.writeMediumLE(3).writeByte(7).writeBytes("abc".getBytes(StandardCharsets.US_ASCII));
        in.writeMediumLE(2).writeByte(8).writeBytes("d".getBytes(StandardCharsets.US_ASCII)); // truncated: waits
        channel.writeInbound(in);
        PacketDecoder.Packet first = channel.readInbound();
        assertEquals(7, first.sequence());
        assertEquals("abc", first.payload().toString(StandardCharsets.US_ASCII));
        first.payload().release();
        assertNull(channel.readInbound());
        channel.writeInbound(Unpooled.wrappedBuffer("e".getBytes(StandardCharsets.US_ASCII)));
        PacketDecoder.Packet second = channel.readInbound();
        assertEquals("de", second.payload().toString(StandardCharsets.US_ASCII));
        second.payload().release();
        ByteBuf huge = Unpooled.buffer().writeMediumLE(0xFFFFFF).writeByte(0);
        channel.writeInbound(huge);
        assertInstanceOf(PacketDecoder.TooLarge.class, channel.readInbound());
        channel.finishAndReleaseAll();
    }

    @Test
    void anErrorNumberedZeroIsSentAsUnknownError() {
        var w = new PacketWriter(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT);
        w.sequence(1);
        Packets.error(w, 0, "25000", "roll back first");
        ByteBuf b = w.take();
        b.skipBytes(4);
        assertEquals(0xFF, b.readUnsignedByte());
        assertEquals(1105, b.readUnsignedShortLE());
        assertEquals("#25000roll back first", b.toString(StandardCharsets.UTF_8));
        b.release();
    }

    @Test
    void lengthEncodedIntegers() {
        for (long v : new long[] {0, 250, 251, 65535, 65536, (1 << 24) - 1, 1 << 24, Long.MAX_VALUE}) {
            ByteBuf b = Unpooled.buffer();
            MysqlWire.writeLenEnc(b, v);
            assertEquals(v, MysqlWire.readLenEnc(b));
        }
    }

    @Test
    void passwordScramblesAsTheClientsComputeThem() {
        byte[] scramble = MysqlPasswords.scramble();
        byte[] password = "s3cret".getBytes(StandardCharsets.UTF_8);
        // mysql_native_password: SHA1(pw) XOR SHA1(scramble + SHA1(SHA1(pw)))
        byte[] h1 = MysqlPasswords.sha1(password);
        byte[] nativeResponse = MysqlPasswords.xor(h1, MysqlPasswords.sha1(MysqlPasswords.concat(scramble, MysqlPasswords.sha1(h1))));
        // caching_sha2_password: SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) + scramble)
        byte[] s1 = MysqlPasswords.sha256(password);
        byte[] sha2Response = MysqlPasswords.xor(s1, MysqlPasswords.sha256(MysqlPasswords.concat(MysqlPasswords.sha256(s1), scramble)));
        var passwords = new MysqlPasswords(new org.lutra.server.Credentials(List.of(new org.lutra.config.RouterConfig.User("app", "s3cret"))));
        assertTrue(passwords.verifyNative("app", scramble, nativeResponse));
        assertTrue(passwords.verifySha2Fast("app", scramble, sha2Response));
        nativeResponse[0] ^= 1;
        assertTrue(!passwords.verifyNative("app", scramble, nativeResponse));
        assertTrue(!passwords.verifySha2Fast("nobody", scramble, sha2Response));
    }

    @Test
    void textValuesOfIntegersRespectUnsignedAndYear() {
        var unsigned = new MysqlColumn("", "", "", "x", "", 63, 20, MysqlWire.TYPE_LONGLONG, MysqlWire.UNSIGNED_FLAG, 0);
        ByteBuf b = Unpooled.buffer();
        TextValues.write(b, Value.newBuilder().setIntValue(-1).build(), unsigned, ClientCharset.UTF8MB4);
        assertEquals("18446744073709551615", MysqlWireTestSupport.lenEncString(b));
        var year = new MysqlColumn("", "", "", "y", "", 63, 4, MysqlWire.TYPE_YEAR, MysqlWire.UNSIGNED_FLAG, 0);
        b.clear();
        TextValues.write(b, Value.newBuilder().setIntValue(0).build(), year, ClientCharset.UTF8MB4);
        assertEquals("0000", MysqlWireTestSupport.lenEncString(b));
    }

    static final class MysqlWireTestSupport {
        static String lenEncString(ByteBuf b) {
            return new String(MysqlWire.readLenEncBytes(b), StandardCharsets.UTF_8);
        }
    }
}
