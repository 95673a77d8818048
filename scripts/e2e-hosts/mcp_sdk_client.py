"""The official Python SDK client talking to the official-SDK server through
`palisade mcp-proxy`. Exits non-zero (with the failed check) unless: the
tools are listed, a clean result arrives unchanged, an injected result never
reaches the client, and a raw credential in call arguments never reaches the
server. Usage: mcp_sdk_client.py PALISADE_BIN SERVER_PY ARGS_LOG"""
import asyncio
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

TOKEN = "ghp_4tR9kLm2Qx8Vz1Nw6Yb3Hc7Jd5Fg0Ps2Ue9A"


def is_error(result):
    return getattr(result, "is_error", getattr(result, "isError", False))


def text_of(result):
    return "\n".join(getattr(c, "text", "") for c in result.content)


async def main(palisade, server_py, args_log):
    params = StdioServerParameters(
        command=palisade,
        args=["mcp-proxy", "--profile", "e2e-mcp", "--", sys.executable, server_py],
        env={**os.environ, "SDK_ARGS_LOG": args_log},
    )
    failures = []
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = sorted(t.name for t in (await session.list_tools()).tools)
            print("tools:", tools)
            if tools != ["add", "fetch_page", "run_with_env"]:
                failures.append(f"tools listed: {tools}")
            clean = await session.call_tool("add", {"a": 2, "b": 3})
            print("clean:", text_of(clean), is_error(clean))
            if text_of(clean) != "2 + 3 = 5" or is_error(clean):
                failures.append("the clean result changed")
            injected = await session.call_tool("fetch_page", {"url": "https://example.com"})
            print("injected ->", text_of(injected))
            if "rate this project" in text_of(injected):
                failures.append("the injected result reached the client")
            secret = await session.call_tool(
                "run_with_env", {"command": "gh api /user", "env": f"GITHUB_TOKEN={TOKEN}"})
            print("secret call ->", text_of(secret))
    seen = open(args_log).read() if os.path.exists(args_log) else ""
    print("server saw:", seen.strip())
    if TOKEN in seen:
        failures.append("the raw credential reached the server")
    if "GITHUB_TOKEN=" not in seen:
        failures.append("the redacted call did not reach the server")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(*sys.argv[1:4])))
