// The web page of `gpuplan serve` in a real browser: Debian's chromium, headless, driven by
// playwright-core. Run by scripts/browser-test.sh (ctest's browser_page):
//   node --test tests/browser/page_test.mjs   with GPUPLAN_BINARY and CHROMIUM set
// Each test opens a plan link the way a user would and checks what the page shows.
import {test, before, after} from "node:test";
import assert from "node:assert/strict";
import {spawn, spawnSync} from "node:child_process";
import {mkdtempSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import {chromium} from "playwright-core";

const binary = process.env.GPUPLAN_BINARY || "build/gpuplan";
const screenshot = process.env.GPUPLAN_SCREENSHOT;  // where to save docs/web-page.png (shown in docs/http-api.md)
let server, origin, browser;

before(async () => {
  server = spawn(binary, ["serve", "--port", "0"], {stdio: ["ignore", "pipe", "pipe"]});
  origin = await new Promise((resolve, reject) => {
    let out = "";
    server.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/[^/]+)\//);
      if (m) resolve(m[1]);
    });
    server.on("exit", (code) => reject(new Error("gpuplan serve exited " + code + ": " + out)));
  });
  browser = await chromium.launch({executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
                                   args: ["--no-sandbox", "--disable-dev-shm-usage"]});
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.kill("SIGINT");
});

// A page at `width` that fails the test on any request off the server or any script error.
async function open(link, width = 1280) {
  const page = await browser.newPage({viewport: {width, height: 900}});
  const outside = [], errors = [];
  page.on("request", (r) => { if (!r.url().startsWith(origin)) outside.push(r.url()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(origin + link);
  page.checkClean = () => {
    assert.deepEqual(outside, [], "the page must not reach outside the server");
    assert.deepEqual(errors, [], "no script errors");
  };
  return page;
}

const LORA = "/?task=finetune&method=lora&model=llama-2-7b&tokens=100M&region=cn-hangzhou" +
             "&objective=cost";

test("a plan link fills the form, runs the plan and draws every candidate", async () => {
  const page = await open(LORA);
  await page.waitForSelector("#candidates tbody tr");
  assert.equal(await page.inputValue("[name=model]"), "llama-2-7b");
  assert.equal(await page.inputValue("[name=region]"), "cn-hangzhou");
  assert.equal(await page.inputValue("[name=method]"), "lora");
  const rows = await page.locator("#candidates tbody tr").count();
  assert.ok(rows >= 2, "rows: " + rows);
  const points = await page.locator("#tradeoff circle.point").count();
  const notDrawn = await page.locator("text=/candidate\\(s\\) not drawn/").count();
  assert.ok(points >= 1 && (points === rows || notDrawn === 1), points + " points, " + rows +
            " rows");
  assert.ok(await page.locator("#tradeoff circle.point.pareto").count() >= 1);
  assert.match(await page.textContent("#tradeoff .x-title"), /hours/);
  assert.match(await page.textContent("#tradeoff .y-title"), /CNY total/);
  // Every row is in the region the link asked for.
  const regions = await page.locator("#candidates tbody tr td:nth-child(6)").allTextContents();
  assert.ok(regions.every((r) => r === "cn-hangzhou"), regions.join());
  page.checkClean();
  if (screenshot) {
    // The answer: the summary, the chart and the table.
    const top = (await page.locator("#summary").boundingBox()).y - 8;
    const bottom = await page.evaluate(() =>
        document.querySelector("#candidates").getBoundingClientRect().bottom + scrollY);
    await page.screenshot({path: screenshot, fullPage: true,
                           clip: {x: 0, y: top, width: 1280, height: bottom - top + 8}});
  }
  await page.close();
});

test("hovering a point names the candidate; clicking a row shows its details", async () => {
  const page = await open(LORA);
  await page.waitForSelector("#tradeoff circle.point");
  // The last point drawn is on top of any it overlaps: hover it and read its name.
  const dot = page.locator("#tradeoff circle.point").last();
  const index = Number(await dot.getAttribute("data-index"));
  const instance = await page.textContent("#candidates tbody tr:nth-child(" + (index + 1) +
                                          ") td:nth-child(2)");
  await dot.hover();
  const named = await page.textContent("#hover");
  assert.ok(named.startsWith("#" + (index + 1) + " " + instance), named);
  assert.equal(named, await dot.getAttribute("aria-label"));
  const second = page.locator("#candidates tbody tr:nth-child(2)");
  const name = await second.locator("td:nth-child(2)").textContent();
  await second.click();
  assert.equal(await second.getAttribute("aria-selected"), "true");
  assert.match(await page.textContent("#details h2"), new RegExp("#2 " + name.replace(".", "\\.")));
  assert.ok(await page.locator("#memory-bar rect.part").count() >= 2, "memory parts");
  assert.equal(await page.locator("#memory-bar line.capacity").count(), 1);
  assert.ok(await page.locator("#step-bar rect.part").count() >= 1, "step-time parts");
  assert.match(await page.textContent("#details"), /per instance hour/);
  // Its explain and its deploy files, from the server.
  await page.click("#explain");
  await page.locator("#explain-result h3").waitFor();
  assert.equal(await page.textContent("#explain-result h3"), "gpuplan explain " + name);
  assert.ok(await page.locator("#explain-result li").count() >= 1);
  await page.click("#deploy");
  await page.locator("#deploy-result a").first().waitFor();
  const files = await page.locator("#deploy-result a").allTextContents();
  assert.ok(files.includes("run-instances.sh") && files.includes("main.tf"), files.join());
  const [download] = await Promise.all([page.waitForEvent("download"),
                                        page.click("#deploy-result a:text('run-instances.sh')")]);
  assert.equal(download.suggestedFilename(), "run-instances.sh");
  page.checkClean();
  await page.close();
});

test("the page works from the keyboard", async () => {
  const page = await open(LORA);
  await page.waitForSelector("#candidates tbody tr");
  await page.focus("#candidates tbody tr:nth-child(3)");
  await page.keyboard.press("Enter");
  assert.equal(await page.getAttribute("#candidates tbody tr:nth-child(3)", "aria-selected"),
               "true");
  assert.match(await page.textContent("#details h2"), /^#3 /);
  // The form: tab into the model field, type, submit with Enter.
  await page.focus("[name=seq_len]");
  await page.keyboard.press("Control+A");
  await page.keyboard.type("4096");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => location.search.includes("seq_len=4096"));
  await page.waitForSelector("#candidates tbody tr");
  page.checkClean();
  await page.close();
});

test("changing a field replans and updates the link", async () => {
  const page = await open(LORA);
  await page.waitForSelector("#candidates tbody tr");
  await page.selectOption("[name=objective]", "time");
  await page.fill("[name=max_gpus]", "8");
  await page.click("button[type=submit]");
  await page.waitForFunction(() => location.search.includes("objective=time") &&
                             location.search.includes("max_gpus=8"));
  // The link changes before the new plan arrives: wait for the replanned table.
  await page.waitForFunction(() => {
    const cells = [...document.querySelectorAll("#candidates tbody tr td:nth-child(5)")];
    return cells.length > 0 && cells.every((c) => Number(c.textContent) <= 8);
  }, null, { timeout: 10000 }).catch(() => {});
  const gpus = await page.locator("#candidates tbody tr td:nth-child(5)").allTextContents();
  assert.ok(gpus.every((g) => Number(g) <= 8), gpus.join());
  await page.click("#copy-link");
  assert.match(await page.inputValue("#link"), /max_gpus=8/);
  // Back returns to the plan before the change.
  await page.goBack();
  await page.waitForFunction(() => !location.search.includes("max_gpus=8"));
  assert.equal(await page.inputValue("[name=max_gpus]"), "");
  assert.equal(await page.inputValue("[name=objective]"), "cost");
  await page.goForward();
  await page.waitForFunction(() => location.search.includes("max_gpus=8"));
  await page.waitForSelector("#candidates tbody tr");
  // The link, opened again, gives the same table.
  const link = await page.inputValue("#link");
  const again = await open(link.slice(origin.length));
  await again.waitForSelector("#candidates tbody tr");
  assert.deepEqual(await again.locator("#candidates tbody tr td:nth-child(2)").allTextContents(),
                   await page.locator("#candidates tbody tr td:nth-child(2)").allTextContents());
  page.checkClean();
  await again.close();
  await page.close();
});

test("a bad link shows the CLI's field error next to the field", async () => {
  // What the CLI says for the same value in a workload file.
  const dir = mkdtempSync(join(tmpdir(), "gpuplan-page-"));
  const file = join(dir, "w.yaml");
  writeFileSync(file, "task: finetune\nmodel: llama-2-7b\nseq_len: lots\n");
  const cli = spawnSync(binary, ["plan", file], {encoding: "utf8"});
  assert.notEqual(cli.status, 0);
  const said = cli.stderr.match(/field "seq_len": ([^\n]*)/);
  assert.ok(said, cli.stderr);
  const page = await open("/?task=finetune&model=llama-2-7b&seq_len=lots");
  const slot = page.locator(".field-error[data-for=seq_len]");
  await slot.filter({hasText: /./}).waitFor();
  assert.ok((await slot.textContent()).includes(said[1]), await slot.textContent());
  assert.equal(await page.getAttribute("[name=seq_len]", "aria-invalid"), "true");
  // An unknown key in the link is named too.
  const other = await open("/?task=finetune&model=llama-2-7b&sequence=4");
  await other.waitForSelector("#result .error");
  assert.match(await other.textContent("#result"), /unknown key "sequence"/);
  page.checkClean();
  await other.close();
  await page.close();
});

test("an inference link labels latency and cost per month", async () => {
  const page = await open("/?task=inference&model=qwen2.5-7b&requests_per_s=20&ttft_ms=1000" +
                          "&tpot_ms=50&region=cn-hangzhou&long_running=true" +
                          "&billing=payg,subscription");
  await page.waitForSelector("#candidates tbody tr");
  assert.equal(await page.isVisible("[name=requests_per_s]"), true);
  assert.equal(await page.isVisible("[name=seq_len]"), false);
  assert.match(await page.textContent("#tradeoff .x-title"), /latency per request, ms/);
  assert.match(await page.textContent("#tradeoff .y-title"), /per month/);
  const head = await page.locator("#candidates th").allTextContents();
  assert.ok(head.includes("TTFT ms") && head.includes("TPOT ms"), head.join());
  assert.match(await page.textContent("#candidates tbody tr:first-child .cost"), /\/month/);
  page.checkClean();
  await page.close();
});

test("a day's traffic draws the fleet's instances by hour", async () => {
  const page = await open("/?task=inference&model=qwen2.5-32b&base_rps=2&peak_rps=30" +
                          "&peak_hours=19-22&timezone=Asia/Shanghai");
  await page.waitForSelector("#fleet-chart");
  assert.equal(await page.locator("#fleet-chart rect.base").count(), 24);
  assert.equal(await page.locator("#fleet-chart rect.elastic").count(), 24);
  assert.match(await page.textContent("#fleet-chart"), /subscription_month \+ payg/);
  // The evening hours carry the elastic instances; the night none.
  const night = await page.locator("#fleet-chart rect.elastic").nth(3).getAttribute("height");
  const evening = await page.locator("#fleet-chart rect.elastic").nth(20).getAttribute("height");
  assert.ok(Number(night) === 0 && Number(evening) > 0, night + " / " + evening);
  page.checkClean();
  await page.close();
});

test("a campaign shows what to buy, the schedule and the week against commitments", async () => {
  const page = await open("/");
  await page.click("#campaign summary");
  await page.click("#campaign-run");
  await page.waitForSelector("#campaign-chart", {timeout: 60000});
  assert.equal(await page.locator("#campaign-chart rect.elastic").count(), 168);
  assert.equal(await page.locator("#campaign-chart polyline.committed").count(), 1);
  assert.match(await page.textContent("#campaign-commitments"), /subscription_month/);
  // The nightly fine-tune runs on the capacity the service leaves idle at night.
  assert.match(await page.textContent("#campaign-schedule"), /nightly-lora.*subscription_month/);
  page.checkClean();
  await page.close();
});

test("spot candidates carry the (min) or from-lower-bound mark", async () => {
  const page = await open("/?task=finetune&method=lora&model=llama-2-7b&tokens=100M" +
                          "&billing=spot&region=cn-hangzhou");
  await page.waitForSelector("#candidates tbody tr");
  const costs = await page.locator("#candidates tbody .cost").allTextContents();
  // Spot with a measured reclaim rate is a lower bound "(min)"; without one it is ranked with
  // the default interruption allowance and shows the no-reclaim cost it starts "from".
  assert.ok(costs.length > 0 && costs.every((c) => c.includes("(min)") || c.includes("from ")),
            costs.join(" | "));
  page.checkClean();
  await page.close();
});

test("at phone width nothing overflows the page", async () => {
  const page = await open(LORA, 390);
  await page.waitForSelector("#candidates tbody tr");
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, "page is " + width + " px wide at 390");
  assert.ok((await page.locator("#tradeoff").boundingBox()).width <= 390);
  page.checkClean();
  await page.close();
});

// Issue 30: the table was wider than its box from 1280 to 2400 px, so the cost column sat in the
// part scrolled out of view and costs looked blank. At each width, for a job and a service (more
// columns): the table needs no sideways scroll, every cell lies inside the page, and each cost
// cell is visible and shows a number.
const SERVICE = "/?task=inference&model=qwen2.5-7b&requests_per_s=20&ttft_ms=1000&tpot_ms=50" +
                "&region=cn-hangzhou&long_running=true&billing=payg,subscription";
for (const [kind, link] of [["job", LORA], ["service", SERVICE]]) {
  for (const width of [390, 1280, 1400, 2400]) {
    test(`at ${width} px every column of a ${kind}'s table is in view, costs non-empty`,
         async () => {
      const page = await open(link, width);
      await page.waitForSelector("#candidates tbody tr");
      const fit = await page.evaluate(() => {
        const wrap = document.querySelector("#candidates").parentElement;
        const box = wrap.getBoundingClientRect();
        const left = Math.max(box.left, 0);
        const right = Math.min(box.right, document.documentElement.clientWidth);
        const outside = [...document.querySelectorAll("#candidates tbody td")].filter((td) => {
          const r = td.getBoundingClientRect();
          return r.left < left - 1 || r.right > right + 1;
        }).map((td) => (td.dataset.label || "?") + " " + td.textContent);
        return {scroll: wrap.scrollWidth - wrap.clientWidth, outside};
      });
      assert.ok(fit.scroll <= 1, "the table scrolls sideways by " + fit.scroll + " px");
      assert.deepEqual(fit.outside.slice(0, 5), [], "cells out of view");
      const costs = page.locator("#candidates tbody td.cost");
      const n = await costs.count();
      assert.ok(n >= 2, "rows: " + n);
      for (let i = 0; i < n; i++) {
        assert.ok(await costs.nth(i).isVisible(), "cost cell " + (i + 1) + " hidden");
        assert.match(await costs.nth(i).innerText(), /\d/, "cost cell " + (i + 1) + " blank");
      }
      page.checkClean();
      await page.close();
    });
  }
}
