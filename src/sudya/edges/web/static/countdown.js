/* Round clocks: every element with data-ends counts down to the server's end time (the server's
   clock decides, not the device's). data-now is the server's time when the page was made;
   data-up is the text shown when time is up. Without JavaScript the server's figure stays. */
(function () {
  function start(el) {
    var ends = Date.parse(el.dataset.ends);
    var skew = el.dataset.now ? Date.parse(el.dataset.now) - Date.now() : 0;
    function tick() {
      var left = Math.max(0, Math.round((ends - (Date.now() + skew)) / 1000));
      el.textContent = Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
      if (left === 0) {
        el.classList.add("over");
        var state = el.dataset.state && document.getElementById(el.dataset.state);
        if (state && el.dataset.up) { state.textContent = el.dataset.up; }
        if (el.dataset.overOn) { document.querySelector(el.dataset.overOn).classList.add("over"); }
        return;
      }
      setTimeout(tick, 1000 - ((Date.now() + skew) % 1000));
    }
    tick();
  }
  document.querySelectorAll("[data-ends]").forEach(start);
})();
