// napjudge's web archive: on a phase's page the left and right arrow keys open the previous
// and next phase (the links marked rel="prev" and rel="next"). No framework, nothing stored.
document.addEventListener('keydown', (e) => {
  if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
  const t = e.target;
  if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
  const rel = { ArrowLeft: 'prev', ArrowRight: 'next' }[e.key];
  const link = rel && document.querySelector('a[rel="' + rel + '"]');
  if (link) {
    e.preventDefault();
    window.location.href = link.href;
  }
});
