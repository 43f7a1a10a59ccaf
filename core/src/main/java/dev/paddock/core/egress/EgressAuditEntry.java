package dev.paddock.core.egress;

/** An audit record as stored, with the id ({@code egr_…}, time-ordered) that pages and streams use as cursor. */
public record EgressAuditEntry(String id, EgressAuditRecord record) {}
