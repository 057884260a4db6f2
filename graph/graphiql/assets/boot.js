// Koredyne Schedule: starts GraphiQL on the page served by graph/graphiql.
// The page carries its settings on #graphiql (data-endpoint,
// data-storage-prefix, data-default-query); ?query=, ?variables= and
// ?operationName= open with that operation in the editor (nothing runs until
// the play button is pressed). A browser with no tabs of its own opens with
// the default query, its dates moved to this week. Headers are kept in local
// storage only, never in the URL: they hold tokens.
//
// The API answers introspection only to a token, and GraphiQL fetches the
// schema once, when it starts (before its headers editor exists) or when its
// fetcher changes. So the fetcher falls back on the kept headers, and a
// change of the headers (once they parse) hands GraphiQL a new fetcher,
// which fetches the schema again with them.
(function () {
  'use strict';
  var root = document.getElementById('graphiql');
  var endpoint = root.getAttribute('data-endpoint');
  var url = endpoint;
  var subscriptionUrl = endpoint;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(endpoint)) {
    url = location.protocol + '//' + location.host + endpoint;
    subscriptionUrl = (location.protocol === 'https:' ? 'wss:' : 'ws:') + '//' + location.host + endpoint;
  } else {
    subscriptionUrl = endpoint.replace(/^http/i, 'ws');
  }
  var prefix = root.getAttribute('data-storage-prefix') || '';
  var storage = {
    getItem: function (k) { return localStorage.getItem(prefix + k); },
    setItem: function (k, v) { localStorage.setItem(prefix + k, v); },
    removeItem: function (k) { localStorage.removeItem(prefix + k); },
    clear: function () {
      for (var i = localStorage.length - 1; i >= 0; i--) {
        var k = localStorage.key(i);
        if (k !== null && k.indexOf(prefix) === 0) localStorage.removeItem(k);
      }
    },
    get length() {
      var n = 0;
      for (var i = 0; i < localStorage.length; i++) {
        if (localStorage.key(i).indexOf(prefix) === 0) n++;
      }
      return n;
    }
  };
  var send = GraphiQL.createFetcher({ url: url, subscriptionUrl: subscriptionUrl });

  // GraphiQL keeps the active tab's headers under graphiql:headers (its
  // storage names every key graphiql:, within ours).
  // headersOf parses a headers editor's text as GraphiQL does: null when it
  // is not JSON, {} when it is empty.
  function headersOf(text) {
    if (!text || !text.trim()) return {};
    try {
      var h = JSON.parse(text);
      return h !== null && typeof h === 'object' && !Array.isArray(h) ? h : null;
    } catch (e) {
      return null;
    }
  }
  function newFetcher() {
    return function (params, opts) {
      if (!opts || !opts.headers) {
        var kept = headersOf(storage.getItem('graphiql:headers'));
        if (kept) opts = Object.assign({}, opts, { headers: kept });
      }
      return send(params, opts);
    };
  }

  // thisWeek moves every date of the query by the same whole number of
  // weeks, so that its first date falls in the week of today (the browser's
  // date): the README's week, this week, on the same weekdays.
  function thisWeek(query) {
    var day = 86400000;
    var first = /"(\d{4})-(\d\d)-(\d\d)"/.exec(query);
    if (!first) return query;
    var now = new Date();
    var today = Date.UTC(now.getFullYear(), now.getMonth(), now.getDate());
    var from = Date.UTC(+first[1], +first[2] - 1, +first[3]);
    var shift = Math.floor((today - from) / (7 * day)) * 7 * day;
    return query.replace(/"(\d{4})-(\d\d)-(\d\d)"/g, function (_, y, m, d) {
      return '"' + new Date(Date.UTC(+y, +m - 1, +d) + shift).toISOString().slice(0, 10) + '"';
    });
  }

  var params = new URLSearchParams(location.search);
  var introspectedWith = JSON.stringify(headersOf(storage.getItem('graphiql:headers')) || {});
  var pending = null;
  var props = {
    fetcher: newFetcher(),
    defaultQuery: thisWeek(root.getAttribute('data-default-query') || ''),
    isHeadersEditorEnabled: true,
    shouldPersistHeaders: true,
    storage: storage,
    inputValueDeprecation: true,
    onEditHeaders: function (text) {
      clearTimeout(pending);
      pending = setTimeout(function () {
        var h = headersOf(text);
        if (h === null || JSON.stringify(h) === introspectedWith) return;
        introspectedWith = JSON.stringify(h);
        props.fetcher = newFetcher();
        render();
      }, 300);
    }
  };
  ['query', 'variables', 'operationName'].forEach(function (name) {
    if (params.has(name)) props[name] = params.get(name);
  });
  function render() {
    ReactDOM.render(React.createElement(GraphiQL, props), root);
  }
  render();
})();
