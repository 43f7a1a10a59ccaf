package dev.paddock.driver.browservm;

import java.util.List;

/** A tab's answer to one op, with its streamed chunks joined. */
record Reply(Integer exitCode, byte[] stdout, byte[] stderr, byte[] data, Frames.Entry entry, List<Frames.Entry> entries, String path) {}
