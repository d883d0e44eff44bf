//! Bitget UTA string enums (reference §4.2, §5.1, §8): each has `as_str()` (the spelling the
//! private WebSocket sends and expects) and `parse(&[u8])`, which accepts that spelling in any
//! ASCII case (REST answers use upper case: `USDT-FUTURES`, `NO`).

macro_rules! bitget_enum {
    (
        $(#[$meta:meta])*
        $name:ident { $( $(#[$vmeta:meta])* $variant:ident => $text:literal $(| $alias:literal)* ),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// All values, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The WebSocket spelling (lower case), as written into requests and seen in pushes.
            #[inline]
            pub const fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )+
                }
            }

            /// Parses the Bitget spelling, ASCII case-insensitively; `None` for anything else.
            #[inline]
            pub fn parse(s: &[u8]) -> Option<$name> {
                $(
                    if s.eq_ignore_ascii_case($text.as_bytes()) $(|| s.eq_ignore_ascii_case($alias.as_bytes()))* {
                        return Some($name::$variant);
                    }
                )+
                None
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

bitget_enum! {
    /// Product line (`category`, reference §5.1 and §7). The WebSocket uses lower case
    /// ([`Category::as_ws_str`]), REST upper case ([`Category::as_rest_str`]); fill pushes have
    /// been seen with either (§4.3), so [`Category::parse`] accepts both.
    Category {
        /// `spot` / `SPOT`.
        Spot => "spot",
        /// `margin` / `MARGIN`.
        Margin => "margin",
        /// `usdt-futures` / `USDT-FUTURES`.
        UsdtFutures => "usdt-futures",
        /// `coin-futures` / `COIN-FUTURES`.
        CoinFutures => "coin-futures",
        /// `usdc-futures` / `USDC-FUTURES`.
        UsdcFutures => "usdc-futures",
    }
}

impl Category {
    /// The WebSocket spelling (`usdt-futures`), the only one WS trade ops accept (§5.1: upper case
    /// is refused with code 41101). Same as [`Category::as_str`].
    #[inline]
    pub const fn as_ws_str(self) -> &'static str {
        self.as_str()
    }

    /// The REST spelling (`USDT-FUTURES`, reference §7).
    #[inline]
    pub const fn as_rest_str(self) -> &'static str {
        match self {
            Category::Spot => "SPOT",
            Category::Margin => "MARGIN",
            Category::UsdtFutures => "USDT-FUTURES",
            Category::CoinFutures => "COIN-FUTURES",
            Category::UsdcFutures => "USDC-FUTURES",
        }
    }
}

bitget_enum! {
    /// Order side (`side`, reference §5.1, §4.2).
    Side {
        /// `buy`.
        Buy => "buy",
        /// `sell`.
        Sell => "sell",
    }
}

bitget_enum! {
    /// Order type (`orderType`, reference §5.1).
    OrderType {
        /// `limit`.
        Limit => "limit",
        /// `market`.
        Market => "market",
    }
}

bitget_enum! {
    /// Time in force (`timeInForce`, reference §5.1, §8). Bitget's `rpi` (retail price
    /// improvement, whitelisted market makers only) is not modelled: it parses as `None`.
    TimeInForce {
        /// `gtc`: rests until filled or cancelled.
        Gtc => "gtc",
        /// `ioc`: immediate or cancel.
        Ioc => "ioc",
        /// `fok`: fill or kill.
        Fok => "fok",
        /// `post_only`: maker only.
        PostOnly => "post_only",
    }
}

bitget_enum! {
    /// Position side in hedge mode (`posSide` in requests, `holdSide` in order and fill pushes;
    /// reference §4.2, §5.1).
    PosSide {
        /// `long`.
        Long => "long",
        /// `short`.
        Short => "short",
    }
}

bitget_enum! {
    /// Position mode of the account (`holdMode`, reference §4.4).
    HoldMode {
        /// `one_way_mode`.
        OneWay => "one_way_mode",
        /// `hedge_mode`.
        Hedge => "hedge_mode",
    }
}

bitget_enum! {
    /// Self-trade prevention mode (`stpMode`, reference §5.1, §8).
    StpMode {
        /// `none`: no check.
        None => "none",
        /// `cancel_taker`.
        CancelTaker => "cancel_taker",
        /// `cancel_maker`.
        CancelMaker => "cancel_maker",
        /// `cancel_both`.
        CancelBoth => "cancel_both",
    }
}

bitget_enum! {
    /// Order state in `order` pushes (`orderStatus`, reference §4.2). `live` and `new` are both
    /// open. The one-`l` spelling `canceled` is accepted as well as Bitget's `cancelled`.
    OrderStatus {
        /// `live`: accepted and resting.
        Live => "live",
        /// `new`: in matching.
        New => "new",
        /// `partially_filled`.
        PartiallyFilled => "partially_filled",
        /// `filled` (terminal).
        Filled => "filled",
        /// `cancelled` (terminal).
        Cancelled => "cancelled" | "canceled",
    }
}

impl OrderStatus {
    /// True for `filled` and `cancelled`.
    #[inline]
    pub const fn is_terminal(self) -> bool {
        matches!(self, OrderStatus::Filled | OrderStatus::Cancelled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_cases() {
        for c in Category::ALL {
            assert_eq!(Category::parse(c.as_ws_str().as_bytes()), Some(*c));
            assert_eq!(Category::parse(c.as_rest_str().as_bytes()), Some(*c));
            assert_eq!(c.as_rest_str().to_ascii_lowercase(), c.as_ws_str());
        }
        for s in Side::ALL {
            assert_eq!(Side::parse(s.as_str().as_bytes()), Some(*s));
        }
        for s in OrderType::ALL {
            assert_eq!(OrderType::parse(s.as_str().as_bytes()), Some(*s));
        }
        for s in TimeInForce::ALL {
            assert_eq!(TimeInForce::parse(s.as_str().as_bytes()), Some(*s));
        }
        for s in PosSide::ALL {
            assert_eq!(PosSide::parse(s.as_str().as_bytes()), Some(*s));
        }
        for s in StpMode::ALL {
            assert_eq!(StpMode::parse(s.as_str().as_bytes()), Some(*s));
        }
        for s in OrderStatus::ALL {
            assert_eq!(OrderStatus::parse(s.as_str().as_bytes()), Some(*s));
        }
        assert_eq!(
            OrderStatus::parse(b"canceled"),
            Some(OrderStatus::Cancelled)
        );
        assert_eq!(TimeInForce::parse(b"rpi"), None);
        assert_eq!(Side::parse(b""), None);
        assert_eq!(Category::parse(b"usdt_futures"), None);
        assert_eq!(StpMode::CancelMaker.to_string(), "cancel_maker");
    }
}
