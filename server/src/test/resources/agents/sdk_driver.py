# Drives Paddock sessions with the official Python SDK, one per scenario of the plan, and writes what it saw.
# The same plan and result as sdk-driver.mjs (argument: the plan file; the result goes to plan["output"]).
import json
import os
import sys
import time

import anthropic

plan = json.load(open(sys.argv[1]))
client = anthropic.Anthropic(base_url=plan["baseUrl"], api_key=plan["apiKey"], max_retries=0)


def until_exists(path):
    deadline = time.monotonic() + 60
    while path and not os.path.exists(path):
        if time.monotonic() > deadline:
            raise TimeoutError("no " + path + " after 60 s")
        time.sleep(0.1)


def run_scenario(s):
    session = client.beta.sessions.create(agent=s["agent"], environment_id=s["environment"])
    events, sent = [], []
    interrupted_at = None
    idle_after_interrupt_ms = None
    stream = client.beta.sessions.events.stream(session.id)
    try:
        accepted = client.beta.sessions.events.send(session.id, events=[
            {"type": "user.message", "content": [{"type": "text", "text": s["prompt"]}]}])
        for ev in stream:
            events.append(ev.to_dict(mode="json"))
            if ev.type == s.get("interruptOn") and interrupted_at is None:
                until_exists(s.get("interruptGate"))
                interrupted_at = time.monotonic()
                client.beta.sessions.events.send(session.id, events=[{"type": "user.interrupt"}])
                sent.append("user.interrupt")
            if ev.type == "session.status_terminated":
                break
            if ev.type != "session.status_idle":
                continue
            if interrupted_at is not None and idle_after_interrupt_ms is None:
                idle_after_interrupt_ms = int((time.monotonic() - interrupted_at) * 1000)
            if ev.stop_reason.type != "requires_action":
                break
            answers = []
            for event_id in ev.stop_reason.event_ids:
                asked = next((e for e in events if e["id"] == event_id), None)
                if asked is not None and asked["type"] == "agent.custom_tool_use":
                    answers.append({"type": "user.custom_tool_result", "custom_tool_use_id": event_id,
                                    "content": [{"type": "text", "text": s["customToolResult"]}]})
                elif s.get("confirmation") == "deny":
                    answers.append({"type": "user.tool_confirmation", "tool_use_id": event_id, "result": "deny",
                                    "deny_message": s["denyMessage"]})
                else:
                    answers.append({"type": "user.tool_confirmation", "tool_use_id": event_id, "result": "allow"})
            client.beta.sessions.events.send(session.id, events=answers)
            sent.extend(a["type"] for a in answers)
    finally:
        stream.close()
    retrieved = client.beta.sessions.retrieve(session.id)
    # the whole log again, through the SDK's auto-pagination in small pages
    listed = [ev.to_dict(mode="json") for ev in client.beta.sessions.events.list(session.id, limit=4)]
    return {"scenario": s["name"], "session_id": session.id, "status": retrieved.status, "events": events, "sent": sent,
            "idle_after_interrupt_ms": idle_after_interrupt_ms, "session": retrieved.to_dict(mode="json"),
            "accepted": accepted.to_dict(mode="json"), "listed": listed}


def error_of(request):
    try:
        request()
        return "none"
    except anthropic.APIError as e:
        return type(e).__name__


results = [run_scenario(s) for s in plan["scenarios"]]
errors = {
    "stale_session": error_of(lambda: client.beta.sessions.retrieve("sesn_011CZkZAtmR3yMPDzynEDxu7")),
    "stale_session_events": error_of(lambda: client.beta.sessions.events.send(
        "sesn_011CZkZAtmR3yMPDzynEDxu7", events=[{"type": "user.interrupt"}])),
    "stale_agent": error_of(lambda: client.beta.agents.retrieve("agent_011CZkZAtmR3yMPDzynEDxu7")),
    "terminated_session": error_of(lambda: client.beta.sessions.events.send(
        next(r for r in results if r["status"] == "terminated")["session_id"],
        events=[{"type": "user.message", "content": [{"type": "text", "text": "still there?"}]}])),
}
json.dump({"results": results, "errors": errors}, open(plan["output"], "w"))
