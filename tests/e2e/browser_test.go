package e2e

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A browser is headless Chromium driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe): each command is a JSON object ended by
// a NUL byte, written to the browser's descriptor 3, and replies and
// events come back the same way on its descriptor 4. The test waits on
// what the page shows, in real time, rather than on a virtual clock: a
// page with a live event stream can hold headless Chromium's virtual
// clock still, and the run then never ends.
type browser struct {
	t       *testing.T
	cmd     *exec.Cmd
	send    *os.File
	msgs    chan cdpMessage
	session string
	next    int

	mu      sync.Mutex
	stderr  bytes.Buffer
	readErr error
}

// cdpMessage is a reply (with ID) or an event (with Method) from the
// browser.
type cdpMessage struct {
	ID     int             `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// browserCallTimeout bounds one command's reply; browserWait bounds how
// long a page may take to show what a test waits for. Both only guard
// against a hang: a page that works shows it within a second or two.
const (
	browserCallTimeout = 60 * time.Second
	browserWait        = 60 * time.Second
)

// startBrowser starts headless Chromium in a process group of its own,
// killed whole when the test ends.
func startBrowser(t *testing.T) *browser {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium is required (apt-get install chromium; scripts/test installs it): %v", err)
	}
	// toBrowser carries commands to the browser's descriptor 3,
	// fromBrowser its replies from descriptor 4.
	toBrowserR, toBrowserW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromBrowserR, fromBrowserW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	profile := t.TempDir()
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--hide-scrollbars", "--window-size=1400,1000", "--no-first-run",
		"--user-data-dir="+profile, "--remote-debugging-pipe", "about:blank")
	cmd.Env = append(os.Environ(), "HOME="+profile)
	cmd.ExtraFiles = []*os.File{toBrowserR, fromBrowserW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 5 * time.Second
	b := &browser{t: t, cmd: cmd, send: toBrowserW, msgs: make(chan cdpMessage, 64)}
	cmd.Stdout = &lockedWriter{mu: &b.mu, w: &b.stderr}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		for _, f := range []*os.File{toBrowserR, toBrowserW, fromBrowserR, fromBrowserW} {
			f.Close()
		}
		t.Fatalf("starting chromium: %v", err)
	}
	toBrowserR.Close()
	fromBrowserW.Close()
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		b.session = ""
		b.call("Browser.close", nil, nil)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
		}
		// Renderers can outlive the browser process: kill the group.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
		toBrowserW.Close()
		fromBrowserR.Close()
	})
	go b.read(bufio.NewReader(fromBrowserR))
	return b
}

// lockedWriter serializes the browser's output, which its process
// writes while a test may read it for a failure message.
type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// read delivers the browser's messages until its pipe closes.
func (b *browser) read(r *bufio.Reader) {
	defer close(b.msgs)
	for {
		raw, err := r.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.readErr = err
			b.mu.Unlock()
			return
		}
		var m cdpMessage
		if err := json.Unmarshal(raw[:len(raw)-1], &m); err != nil {
			b.mu.Lock()
			b.readErr = fmt.Errorf("a message from the browser: %v: %q", err, raw)
			b.mu.Unlock()
			return
		}
		if m.ID != 0 {
			b.msgs <- m
		}
	}
}

// call sends method with params to the page the browser is attached to
// (or to the browser, before open) and decodes the reply into result.
func (b *browser) call(method string, params, result any) error {
	b.next++
	id := b.next
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if b.session != "" {
		msg["sessionId"] = b.session
	}
	raw, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	// A browser that stopped reading must not hang the test.
	b.send.SetWriteDeadline(time.Now().Add(browserCallTimeout))
	if _, err := b.send.Write(append(raw, 0)); err != nil {
		return fmt.Errorf("%s: %v", method, err)
	}
	timeout := time.After(browserCallTimeout)
	for {
		select {
		case m, ok := <-b.msgs:
			if !ok {
				b.mu.Lock()
				defer b.mu.Unlock()
				return fmt.Errorf("%s: the browser closed its pipe (%v)", method, b.readErr)
			}
			if m.ID != id {
				continue
			}
			if m.Error != nil {
				return fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
			}
			if result != nil {
				return json.Unmarshal(m.Result, result)
			}
			return nil
		case <-timeout:
			return fmt.Errorf("%s: no reply in %v", method, browserCallTimeout)
		}
	}
}

// must is call that fails the test on an error, with the browser's
// output.
func (b *browser) must(method string, params, result any) {
	b.t.Helper()
	if err := b.call(method, params, result); err != nil {
		b.t.Fatalf("%v\nchromium printed:\n%s", err, b.output())
	}
}

// output is what the browser has printed so far.
func (b *browser) output() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stderr.String()
}

// open loads url in a new page and attaches to it.
func (b *browser) open(url string) {
	b.t.Helper()
	var target struct {
		TargetID string `json:"targetId"`
	}
	b.must("Target.createTarget", map[string]any{"url": url}, &target)
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	b.must("Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
}

// eval evaluates expr in the page and decodes its value into v.
func (b *browser) eval(expr string, v any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := b.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r); err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("%s: %s", expr, r.ExceptionDetails.Text)
	}
	if len(r.Result.Value) == 0 {
		return fmt.Errorf("%s: no value", expr)
	}
	return json.Unmarshal(r.Result.Value, v)
}

// waitFor polls the page until the JavaScript expression cond is true,
// and fails the test with the page's fields if it is not within
// browserWait.
func (b *browser) waitFor(what, cond string) {
	b.t.Helper()
	deadline := time.Now().Add(browserWait)
	var last error
	for time.Now().Before(deadline) {
		var ok bool
		if last = b.eval(cond, &ok); last == nil && ok {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.t.Fatalf("the page never showed %s (%s; last error %v); its fields: %s", what, cond, last, b.fields())
}

// fields is the text of the console's figures, for a failure message.
func (b *browser) fields() string {
	var s string
	if err := b.eval(`["live", "updates", "freshness", "records"].map(id => id + "=" + JSON.stringify(document.getElementById(id)?.textContent)).join(" ")`, &s); err != nil {
		return err.Error()
	}
	return s
}

// dom is the page's document as HTML.
func (b *browser) dom() string {
	b.t.Helper()
	var s string
	if err := b.eval("document.documentElement.outerHTML", &s); err != nil {
		b.t.Fatal(err)
	}
	return s
}

// screenshot returns the page as a PNG.
func (b *browser) screenshot() []byte {
	b.t.Helper()
	var shot struct {
		Data string `json:"data"`
	}
	b.must("Page.captureScreenshot", map[string]any{"format": "png"}, &shot)
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		b.t.Fatal(errors.New("the screenshot is not base64: " + err.Error()))
	}
	return png
}
