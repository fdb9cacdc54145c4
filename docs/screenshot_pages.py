"""Screenshots of the platform pages as a newcomer first sees them: builds the site
(`mkdocs build`), then headless Chromium photographs the top of telegram, slack and teams
pages, where the numbered steps must be. For a look, not a test: the PNGs go to a folder
outside the repo and are not committed.

    python docs/screenshot_pages.py [OUT_DIR]     # default /tmp/ricorda-pages; needs chromium
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGES = ("telegram", "slack", "teams")


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/ricorda-pages")
    out.mkdir(parents=True, exist_ok=True)
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which(
        "google-chrome")
    if browser is None:
        sys.exit("no chromium: apt-get install -y chromium")
    site = Path(tempfile.mkdtemp()) / "site"
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--quiet", "-d", str(site)],
                   cwd=REPO, check=True)
    for page in PAGES:
        shot = out / f"{page}.png"
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                        "--hide-scrollbars", "--window-size=1280,1000",
                        f"--screenshot={shot}", (site / page / "index.html").as_uri()],
                       check=True, capture_output=True, timeout=120)
        print(shot)


if __name__ == "__main__":
    main()
